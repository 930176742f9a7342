package dev.sendlog.simulator;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** A provider's status words and timestamp format, as they appear in callbacks. */
public enum Vocabulary {
    SMPP(
            List.of("ENROUTE", "ACCEPTD"),
            "DELIVRD",
            List.of(
                    new NegativeStatus("UNDELIV", "001"), new NegativeStatus("EXPIRED", "002"),
                    new NegativeStatus("REJECTD", "003"), new NegativeStatus("DELETED", "004")),
            "MYSTERY_STATE",
            DateTimeFormatter.ofPattern("yyMMddHHmmss").withZone(ZoneOffset.UTC),
            // Month 13, hour 25: has the shape of yyMMddHHmmss but no parser accepts it.
            "261345256199"),
    JSON(
            List.of("queued", "sending", "sent"),
            "delivered",
            List.of(new NegativeStatus("undelivered", "30003"), new NegativeStatus("failed", "30008")),
            "mystery_state",
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC),
            "2026-13-45T25:61:99.000Z");

    /** A negative final status with the error code the provider sends along. */
    public record NegativeStatus(String status, String errorCode) {}

    private final List<String> intermediateStatuses;
    private final String deliveredStatus;
    private final List<NegativeStatus> negativeStatuses;
    private final String unknownStatus;
    private final DateTimeFormatter timestampFormat;
    private final String badTimestamp;

    Vocabulary(
            List<String> intermediateStatuses,
            String deliveredStatus,
            List<NegativeStatus> negativeStatuses,
            String unknownStatus,
            DateTimeFormatter timestampFormat,
            String badTimestamp) {
        this.intermediateStatuses = intermediateStatuses;
        this.deliveredStatus = deliveredStatus;
        this.negativeStatuses = negativeStatuses;
        this.unknownStatus = unknownStatus;
        this.timestampFormat = timestampFormat;
        this.badTimestamp = badTimestamp;
    }

    /** The intermediate status of the {@code index}-th intermediate receipt (cycling through the list). */
    public String intermediateStatus(int index) {
        return intermediateStatuses.get(index % intermediateStatuses.size());
    }

    public List<String> intermediateStatuses() {
        return intermediateStatuses;
    }

    public String deliveredStatus() {
        return deliveredStatus;
    }

    public List<NegativeStatus> negativeStatuses() {
        return negativeStatuses;
    }

    /** A status outside this vocabulary. */
    public String unknownStatus() {
        return unknownStatus;
    }

    public DateTimeFormatter timestampFormat() {
        return timestampFormat;
    }

    public String formatTimestamp(Instant at) {
        return timestampFormat.format(at);
    }

    /** A timestamp that looks like this vocabulary's format but does not parse in it. */
    public String badTimestamp() {
        return badTimestamp;
    }
}
