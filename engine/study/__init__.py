"""Study scheduling: SM-2, the daily queue, the clock and the stats report."""
