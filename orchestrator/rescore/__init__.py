"""`rlvr rescore`: re-verify a run's logged rollouts with today's verifier (or other settings) and
say where its rewards first differ. It runs verifiers, so it lives outside `orchestrator/audit/`
(whose readers import no stage); it writes only an audit record (`RunRescored`)."""
