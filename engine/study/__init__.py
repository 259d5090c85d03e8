"""Study scheduling: the Schedule type, SM-2, the answer rules, the daily queue, the clock,
profile settings and the stats report."""
