// Cut off inside a structure attribute.
func.func private @truncated() attributes {s = #recurrence.structure<block_diagonal<4