package dev.sendlog.compactor;

import dev.sendlog.events.MessageIds;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** The partition of one table for one UTC day: ids from the day's first millisecond to the next day's. */
public record DayPartition(PartitionedTable table, LocalDate day) {
    private static final DateTimeFormatter SUFFIX = DateTimeFormatter.BASIC_ISO_DATE;

    public String name() {
        return table.table() + "_p" + SUFFIX.format(day);
    }

    public UUID lowerBound() {
        return MessageIds.lowerBound(day.atStartOfDay(ZoneOffset.UTC).toInstant());
    }

    public UUID upperBound() {
        return MessageIds.lowerBound(
                day.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant());
    }

    /** The day a partition name stands for, or null when the name is not one of ours. */
    public static LocalDate dayOf(PartitionedTable table, String name) {
        String prefix = table.table() + "_p";
        if (!name.startsWith(prefix) || name.length() != prefix.length() + 8) {
            return null;
        }
        return LocalDate.parse(name.substring(prefix.length()), SUFFIX);
    }
}
