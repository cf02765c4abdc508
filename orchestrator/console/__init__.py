"""`rlvr console`: a local web app over one store (SQLite or PostgreSQL).

Pages: Runs (every run, its health and lineage, live), a run (orchestrator/console/run_page.py),
its raw Events (keyset pages, the chain's state), Compare (two runs overlaid), and the actions
(orchestrator/console/actions.py). Starlette and uvicorn are the `console` extra, imported only by
`rlvr console`. Every string from a model or a data file reaches the browser as JSON and is put in
the page with `textContent`; a strict CSP forbids inline script (security.py).
"""
