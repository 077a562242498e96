from sueca.cli import main

raise SystemExit(main())
