"""Emission: the Jinja templates of generated code (`templates/`), their loading and the text assembly of a
converted file's parts (`assembly`), call wrapping (`wrap`) and the masking of strings/comments in generated text
(`codewords`). Emit reads facts only; it decides nothing about a program.
"""
