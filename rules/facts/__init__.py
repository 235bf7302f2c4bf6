"""Facts about TensorFlow programs: queries over the program model (migrator/model.py) that the planners share.

Which Estimator APIs and their signatures (`estimator`), what a dotted TF name means (`tfnames`), a call's bound
arguments (`calls`), the Estimator sites and the values that reach them (`sites`), what a unit's files read and
export (`reading`). Nothing here emits code or imports a planner (.importlinter).
"""
