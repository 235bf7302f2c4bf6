"""A wrong PS migration: mean absolute error instead of mean squared error (verify --ps: NOT equivalent)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ps_migrated  # noqa: E402

if __name__ == "__main__":
    ps_migrated.main(loss_kind="mae")
