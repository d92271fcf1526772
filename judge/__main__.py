import sys

from judge.cli.app import main

sys.exit(main())
