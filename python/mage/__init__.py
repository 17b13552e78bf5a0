"""Mage: write one operation several ways, check each against float64, measure them honestly."""

__version__ = "0.1.0"
