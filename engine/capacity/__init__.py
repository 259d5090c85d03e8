"""The capacity calculator: catalogs, units, formulas and their evaluation."""
