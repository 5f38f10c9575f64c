"""What every stage uses and no stage owns: masking secrets in whatever is written, atomic file
writes, think-block removal, process supervision and the cache's home. It imports no stage."""
