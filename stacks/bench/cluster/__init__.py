"""A community of ``stacks serve --node`` servers on hosts of their own (network
namespaces), losing a node: the harness (`netns`, `services`, `harness`), the eavesdropper
(`eavesdrop`), the trials (`trial`, `player`) and ``stacks bench cluster`` (`command`)."""

KINDS = ("kill", "cut-db", "cut-broker", "cut-both", "drain", "db-restart")
"""The trials' faults: ``kill -9`` of a node's processes; the node cut off from the
database, the broker, or both (its link down); a drain (SIGTERM); the database
restarted under the nodes."""
