"""The deterministic dialog: the state machine, one turn, the policy that answers each act."""
