package dev.sendlog.service.receipts;

import dev.sendlog.events.ReceiptKind;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One gateway's status words and timestamp format: the one place provider vocabulary is mapped to ours.
 * A status not in the map, or a timestamp that does not parse, has no mapping: the callback is parked,
 * never guessed (and never given the current time instead).
 */
public final class Vocabulary {
    private final String name;
    private final Map<String, ReceiptKind> statuses;
    private final List<DateTimeFormatter> localFormats;
    private final boolean iso;

    private Vocabulary(
            String name, Map<String, ReceiptKind> statuses, List<DateTimeFormatter> localFormats, boolean iso) {
        this.name = name;
        this.statuses = Map.copyOf(statuses);
        this.localFormats = List.copyOf(localFormats);
        this.iso = iso;
    }

    /** SMPP delivery-receipt {@code stat} values; timestamps {@code yyMMddHHmm} or {@code yyMMddHHmmss}, in UTC. */
    public static Vocabulary smpp() {
        Map<String, ReceiptKind> m = new LinkedHashMap<>();
        m.put("ENROUTE", ReceiptKind.INTERMEDIATE);
        m.put("ACCEPTD", ReceiptKind.INTERMEDIATE);
        m.put("DELIVRD", ReceiptKind.DELIVERED);
        m.put("EXPIRED", ReceiptKind.UNDELIVERED);
        m.put("DELETED", ReceiptKind.UNDELIVERED);
        m.put("UNDELIV", ReceiptKind.UNDELIVERED);
        m.put("REJECTD", ReceiptKind.UNDELIVERED);
        m.put("UNKNOWN", ReceiptKind.UNKNOWN);
        return new Vocabulary("smpp", m, List.of(strict("uuMMddHHmmss"), strict("uuMMddHHmm")), false);
    }

    /** The JSON style: queued, sending, sent, delivered, undelivered, failed; ISO-8601 timestamps. */
    public static Vocabulary json() {
        Map<String, ReceiptKind> m = new LinkedHashMap<>();
        m.put("queued", ReceiptKind.INTERMEDIATE);
        m.put("sending", ReceiptKind.INTERMEDIATE);
        m.put("sent", ReceiptKind.INTERMEDIATE);
        m.put("delivered", ReceiptKind.DELIVERED);
        m.put("undelivered", ReceiptKind.UNDELIVERED);
        m.put("failed", ReceiptKind.UNDELIVERED);
        return new Vocabulary("json", m, List.of(), true);
    }

    /** A built-in vocabulary by name, with the configured extra or overriding status words. */
    public static Vocabulary named(String name, Map<String, String> extraStatuses) {
        Vocabulary base = switch (name.toLowerCase(Locale.ROOT)) {
            case "smpp" -> smpp();
            case "json" -> json();
            default -> throw new IllegalArgumentException("unknown vocabulary " + name + "; use smpp or json");
        };
        if (extraStatuses.isEmpty()) {
            return base;
        }
        Map<String, ReceiptKind> m = new LinkedHashMap<>(base.statuses);
        extraStatuses.forEach((status, kind) -> m.put(status, ReceiptKind.valueOf(kind)));
        return new Vocabulary(base.name, m, base.localFormats, base.iso);
    }

    private static DateTimeFormatter strict(String pattern) {
        return DateTimeFormatter.ofPattern(pattern, Locale.ROOT).withResolverStyle(ResolverStyle.STRICT);
    }

    public String name() {
        return name;
    }

    /** Every status word this vocabulary knows. */
    public Map<String, ReceiptKind> statuses() {
        return statuses;
    }

    public Optional<ReceiptKind> map(String status) {
        return Optional.ofNullable(statuses.get(status));
    }

    /** The earliest provider time taken: before it, a timestamp is parked as unparseable, not guessed at. */
    static final Instant EARLIEST = Instant.parse("1970-01-01T00:00:00Z");
    /** The latest: the last microsecond of the year 9999 (the log's time columns hold no more). */
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");

    /**
     * The provider's time, kept to the microsecond (as the log stores it, so a receipt read back is the receipt that was
     * decided); empty when it does not parse or falls outside the years 1970 to 9999.
     */
    public Optional<Instant> parseTimestamp(String text) {
        return parse(text)
                .filter(t -> !t.isBefore(EARLIEST) && !t.isAfter(LATEST))
                .map(t -> t.truncatedTo(java.time.temporal.ChronoUnit.MICROS));
    }

    private Optional<Instant> parse(String text) {
        if (iso) {
            try {
                return Optional.of(java.time.OffsetDateTime.parse(text).toInstant());
            } catch (java.time.DateTimeException e) {
                return Optional.empty();
            }
        }
        for (DateTimeFormatter f : localFormats) {
            try {
                return Optional.of(LocalDateTime.parse(text, f).toInstant(ZoneOffset.UTC));
            } catch (DateTimeParseException e) {
                // try the next format
            }
        }
        return Optional.empty();
    }
}
