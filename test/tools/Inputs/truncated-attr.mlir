// Cut off inside a structure attribute.
func.func private @truncated() attributes {s = #recurrence.block_diagonal<4