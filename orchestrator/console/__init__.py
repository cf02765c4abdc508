"""The run console: a local web app over one store (`rlvr console`), and the run page `rlvr report` writes."""
