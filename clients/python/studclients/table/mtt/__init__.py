"""Multi-table tournaments, as pure logic: the settings, the field (entries, late
registration, rebuys, the add-on, the prize pool, refunds, places), the seating draw and
the balancing and breaking of tables. No clock, no I/O: the caller passes the seed, the
level and the stacks, and stores what comes back."""
