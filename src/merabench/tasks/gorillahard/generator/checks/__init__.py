"""The validator: independent checks that a generated set is sound, a module per thing checked,
and the variety and shortcut audit."""
