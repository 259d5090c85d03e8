import sys

from kvdrill.app.cli import main

sys.exit(main())
