"""The application layer: the ledger (open, load, decide, append; owns the caches), the audit as a service,
the demo, history at any seq, key files. The top of cg: nothing else in cg imports it."""
