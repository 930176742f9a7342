package dev.sendlog.compactor;

/** The tables partitioned by a message's time-ordered id, one partition per UTC day. */
public enum PartitionedTable {
    MESSAGES("messages", "id"),
    MESSAGE_EVENTS("message_events", "message_id");

    private final String table;
    private final String keyColumn;

    PartitionedTable(String table, String keyColumn) {
        this.table = table;
        this.keyColumn = keyColumn;
    }

    public String table() {
        return table;
    }

    public String keyColumn() {
        return keyColumn;
    }
}
