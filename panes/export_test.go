package panes

// BulkTokens lets tests hold every flood-parsing slot.
var BulkTokens = bulkTokens

// ReadBufSize is the size of one read from the PTY.
const ReadBufSize = readBufSize
