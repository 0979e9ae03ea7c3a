"""Default settings shared by the CLI and the scoring code (a light module: the CLI imports it at start-up)."""

DEFAULT_BOOTSTRAP = 10_000  # cluster-bootstrap resamples
DEFAULT_SEED = 20260612
DEFAULT_MIN_COVERAGE = 0.9  # ranked: covers at least this share of the pairs the best-covered model covers
