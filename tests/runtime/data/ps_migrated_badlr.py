"""A wrong PS migration: 10x the learning rate (verify --ps must say NOT equivalent)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ps_migrated  # noqa: E402

if __name__ == "__main__":
    ps_migrated.main(lr_scale=10.0)
