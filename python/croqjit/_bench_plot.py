"""``python -m croqjit._bench_plot --figures JSON -o FILE.png``: what
``croq bench --plot`` runs (croqjit.roofline.main). A module of its own,
which the package does not import, so that ``-m`` runs it cleanly."""

import sys

from .roofline import main

if __name__ == "__main__":
    sys.exit(main())
