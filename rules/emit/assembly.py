"""Text assembly of generated code: templates, support snippets, the parts of a converted file joined as text or
parsed hollow, and the settled reading of generated text (which names it binds and reads)."""
from __future__ import annotations

import re
from functools import lru_cache
import libcst as cst
from tfmigrate.edits import SHARED, TextBlocks, render_lines, shared
from . import codewords
from .wrap import generated


@lru_cache(maxsize=None)
def template_env():
    import jinja2

    class _Loader(jinja2.PackageLoader):
        def get_source(self, environment, template):
            source, filename, uptodate = super().get_source(environment, template)
            return generated(source), filename, uptodate  # marks only the template's own `tf.` text

    return jinja2.Environment(
        loader=_Loader("tfmigrate.rules.emit", "templates"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )


@lru_cache(maxsize=None)
def support(template: str, **values) -> str:
    """A template's text that holds nothing of the file (support code: the same in every file that needs it),
    rendered once and registered as such (edits.shared)."""
    return shared(template_env().get_template(template).render(**values))


def quiet_generated(items, named: codewords.CodeWords, quiet: dict, user: set[int] = frozenset()) -> None:
    """Put into `quiet` the generated code, emitted by `emit_parts` (items: (statement, kind, text); a parsed part's text
    is masked, codewords.CodeWords.masked), that names none of
    the file's TF bindings, as finely as its text tells: text blocks; parsed parts that name none, except the path
    to the user's statements spliced in (`user`); in parts that name one, the defs and classes whose own text
    names none, and a class's methods likewise."""
    for stmt, kind, text in items:
        if kind == "text":
            quiet[id(stmt)] = stmt
        elif kind == "plain":
            if not _quiet_around(stmt, user, quiet):
                quiet[id(stmt)] = stmt
    done: set[int] = set()
    for _, kind, text in items:
        if kind != "named" or id(text) in done:
            continue
        done.add(id(text))
        same = [stmt for stmt, _, t in items if t is text]  # the statements of this part
        for stmt, chunk in _def_chunks(text, "", same) or ():
            if FORWARD_PASS not in chunk and not named.search_masked(chunk):
                quiet[id(stmt)] = stmt
            elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                for method, inner in _def_chunks(chunk, "    ", stmt.body.body) or ():
                    if FORWARD_PASS not in inner and not named.search_masked(inner):
                        quiet[id(method)] = method


def _quiet_around(node: cst.CSTNode, keep: set[int], quiet: dict) -> bool:
    """Whether `node` holds a statement in `keep`; if so, its block-level parts that hold none go into `quiet`."""
    if id(node) in keep:
        return True
    if isinstance(node, cst.SimpleStatementLine):
        return False
    parts = [child for child in node.children
             if isinstance(child, (cst.BaseStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.Finally))]
    held = [_quiet_around(child, keep, quiet) for child in parts]
    if not any(held):
        return False
    quiet.update((id(child), child) for child, h in zip(parts, held) if not h)
    return True


def _def_chunks(text: str, indent: str, statements, name: str | None = None):
    """The source text of each def/class among `statements` (one block's statements, parsed from `text`), found
    textually: [(statement, text)], or with `name` that class's text alone; None when the text's `def`/`class`
    lines do not match the statements one to one (then nothing is assumed). A def's text runs to the next one at
    this indentation, so it also covers any statements between them (which only makes it name more)."""
    starts = [m.start() for m in re.finditer(rf"(?m)^{indent}(?:@|(?:async )?def |class )", text)
              if not text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].startswith(f"{indent}@") or m.start() == 0]
    defs = [s for s in statements if isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    chunks = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]
    if len(chunks) != len(defs):
        return None
    header = re.compile(rf"(?:{indent}@[^\n]*\n)*{indent}(?:async )?(?:def|class) (\w+)")
    for stmt, chunk in zip(defs, chunks):
        m = header.match(chunk)
        if m is None or m.group(1) != stmt.name.value:
            return None
    if name is not None:
        return next((chunk for stmt, chunk in zip(defs, chunks) if stmt.name.value == name), None)
    return list(zip(defs, chunks))


FORWARD_PASS = "__tfmigrate_forward_pass__"


_SEPARATOR = (cst.EmptyLine(indent=False), cst.EmptyLine(indent=False))  # the two blank lines between parts


def emit_parts(parts: list[str], blocks: TextBlocks | None,
          named: codewords.CodeWords | None, indent: str = "") -> list[tuple[cst.BaseStatement, str, str]]:
    """The statements of generated module-level code (`parts` joined by two blank lines), each with its kind: with
    `blocks`, consecutive parts that name none of the file's TF bindings (`named`) and hold no forward pass stay
    text ("text": one placeholder statement per run; the leftover-name pass would find nothing there), the others
    are parsed one by one ("named": the part names a binding; "plain": it does not, but holds the forward pass).
    Without `blocks` (or when a part would not splice exactly) the text is parsed as a whole ("parsed"). The
    third item is the text the statement came from (its run of parts; a parsed part's text as parsed, with its
    string literals and comments blanked: codewords.CodeWords.masked, which each part gets once).

    With `indent` (the code goes in a nested block) the text swapped in is each line as LibCST renders the parse
    there (edits.render_lines; the parts are parsed whole where it cannot tell)."""
    parts = [p.rstrip("\n") for p in parts]
    rendered: list[list[str] | None] = [None] * len(parts)
    if blocks is not None and indent:
        rendered = [render_lines(p + "\n", indent, top_blank=False) for p in parts]
        if None in rendered:
            blocks = None
    if blocks is None or not all(map(TextBlocks.splices, parts)):
        return [(stmt, "parsed", "") for stmt in cst.parse_module("\n\n\n".join(parts) + "\n").body]
    out: list[tuple[cst.BaseStatement, str, str]] = []
    run: list[str] = []
    run_lines: list[str] = []

    def flush(standalone: bool = False) -> None:
        if run:
            text = "\n\n\n".join(run) + "\n"
            # (the blank lines between the parts of a run are at its top level: no indentation)
            out.append((blocks.statement(text, _SEPARATOR if out else (), indent,
                                         "\n\n".join(run_lines) if indent else None, standalone), "text", text))
            run.clear()
            run_lines.clear()

    for part, lines in zip(parts, rendered):
        masked = part if named is None else named.masked(part)
        hit = named is not None and named.search_masked(masked) is not None
        if hit and not named.settles(part, masked) or FORWARD_PASS in part:
            flush()
            statements, masked = _parse_hollow(part, named, blocks, masked, indent, lines)
            if out:
                statements[0] = statements[0].with_changes(leading_lines=[*_SEPARATOR, *statements[0].leading_lines])
            out.extend((stmt, "named" if hit else "plain", masked) for stmt in statements)
        else:
            own = hit or part in SHARED  # (support code the same in every file: a block of its own, compiled once)
            if own:  # (settled: a block of its own, the text the import fix-up counts the Names of)
                flush()
            run.append(part)
            if lines is not None:
                run_lines.append("".join(lines))
            if own:
                flush(part in SHARED and not indent)
    flush()
    return out


def _parse_hollow(part: str, named: codewords.CodeWords | None, blocks: TextBlocks,
                  masked: str, indent: str = "", lines: list[str] | None = None) -> tuple[list[cst.BaseStatement], str]:
    """A part that must be parsed, with its defs (module level, and methods of its classes) that name no binding
    and hold no forward pass replaced by placeholder lines first (their text is swapped back after the final
    render, like a text block): (its statements, the text parsed as `masked`: codewords.CodeWords.masked of it, for
    `masked` the part's). The defs are found textually; unless the parse puts every placeholder line where it was
    meant to be (module or class body), the whole part is parsed."""
    swaps: list[tuple[str, str]] = []
    codes: dict[int, str] = {}
    outer = indent  # with `lines` (each line of the part as rendered there), a chunk's swap is its rendered lines

    def hollow(text: str, code: str, indent: str, base: int = 0) -> tuple[str, str]:
        # `code`: `text` masked (same length and lines), searched for the words in slices at the same offsets;
        # `base`: where `text` starts in the part
        starts = [m.start() for m in re.finditer(rf"(?m)^{indent}(?:@|(?:async )?def |class )", text)
                  if not text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].startswith(f"{indent}@") or m.start() == 0]
        head = starts[0] if starts else len(text)
        out, out_code = [text[:head]], [code[:head]]
        for a, b in zip(starts, [*starts[1:], len(text)]):
            chunk, chunk_code = text[a:b], code[a:b]
            if FORWARD_PASS not in chunk and (named is None or not named.search_masked(chunk_code)
                                               or named.settles(chunk, chunk_code)):
                line = f"{indent}{blocks.name()}\n"
                if lines is None:
                    swaps.append((line, chunk))
                else:  # (the names passes read the chunk as written: `codes`)
                    first = part.count("\n", 0, base + a)
                    codes[len(swaps)] = chunk
                    swaps.append((outer + line, "".join(lines[first:first + chunk.count("\n")])))
                out.append(line)
                out_code.append(line)
            elif not indent and re.match(r"(?:@[^\n]*\n)*class ", chunk):
                inner, inner_code = hollow(chunk, chunk_code, "    ", base + a)
                out.append(inner)
                out_code.append(inner_code)
            else:
                out.append(chunk)
                out_code.append(chunk_code)
        return "".join(out), "".join(out_code)

    skeleton, skeleton_code = hollow(part + "\n", masked + "\n", "")
    if swaps:
        try:
            statements = list(cst.parse_module(skeleton).body)
        except cst.ParserSyntaxError:
            statements = None
        if statements is not None and _placeholders(statements) == {line.strip() for line, _ in swaps}:
            blocks.code.update((len(blocks.swaps) + i, chunk) for i, chunk in codes.items())
            blocks.swaps.extend(swaps)
            return statements, skeleton_code.rstrip("\n")
    return list(cst.parse_module(part + "\n").body), masked


def _placeholders(statements) -> set[str]:
    """The one-name statements of a module body and of its classes' bodies (where `_parse_hollow` puts them)."""
    found = set()
    for stmt in statements:
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            found |= _placeholders(stmt.body.body)
        elif (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
              and isinstance(stmt.body[0].value, cst.Name)):
            found.add(stmt.body[0].value.value)
    return found


def free_name(base: str, taken: set[str]) -> str:
    """`base`, or `base2`, `base3`, ... : the first name of a generated class or builder not in `taken` (added)."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{n}"
    taken.add(name)
    return name
