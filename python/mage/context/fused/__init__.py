"""Fused implementations of Mage's blocks, one module each (registered with mage.context.fusion.fused, imported
by mage.context.fusion.load): a peer library's (cuEquivariance's triangle update) beside Mage's own kernels."""
