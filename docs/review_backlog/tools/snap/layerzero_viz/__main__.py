"""``python -m layerzero_viz`` — same as the ``layerzero-viz`` console script."""
from .cli import main

raise SystemExit(main())
