"""A wrong migration: learning rate 0.0505 instead of 0.05 (verify must say NOT equivalent)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regression_ctl  # noqa: E402

if __name__ == "__main__":
    regression_ctl.main(lr=0.0505)
