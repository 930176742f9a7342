package dev.sendlog.tools.chaos;

import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptSource;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.RowCodec;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.log.Actors;
import dev.sendlog.log.Histories;
import dev.sendlog.log.LogRows;
import dev.sendlog.log.LoggedRow;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What the run must show when the faults stop and the pipeline has drained, read from the log itself (every
 * message's state is folded from its history here).
 */
final class ChaosCheck {
    record Result(
            long accepted,
            long sent,
            long delivered,
            long undelivered,
            long unknown,
            long rejected,
            long dead,
            long unfinished,
            long lost,
            long doubleCharged,
            long doubleAccepted,
            long missingKeys,
            long unchargedSent,
            long openCallbacks,
            long callbacksLost,
            Controls controls,
            long finalsByQuery,
            Gateways gateways) {
        boolean passed() {
            return lost == 0
                    && doubleCharged == 0
                    && doubleAccepted == 0
                    && missingKeys == 0
                    && unchargedSent == 0
                    && gateways.seenByTwo() == 0
                    && unfinished == 0
                    && openCallbacks == 0
                    && callbacksLost == 0
                    && controls.breaches() == 0;
        }

        Result withCallbacksLost(long lostCallbacks) {
            return new Result(
                    accepted,
                    sent,
                    delivered,
                    undelivered,
                    unknown,
                    rejected,
                    dead,
                    unfinished,
                    lost,
                    doubleCharged,
                    doubleAccepted,
                    missingKeys,
                    unchargedSent,
                    openCallbacks,
                    lostCallbacks,
                    controls,
                    finalsByQuery,
                    gateways);
        }
    }

    /**
     * Failover between gateways (issue 29, invariant 18): the messages each gateway's provider recorded a submit of that
     * the log says it accepted, the messages that passed from one gateway to another at least once, and the breach: a
     * message whose submit two gateways' providers both recorded (a failover from a gateway that may have had it).
     */
    record Gateways(Map<String, Long> sentVia, long failedOver, long seenByTwo, List<String> seenByTwoDetails) {}

    /**
     * The message controls (issue 26): how many ended EXPIRED and CANCELLED, and the breaches, each of which fails the
     * run: an EXPIRED or CANCELLED message charged, a CANCELLED one the provider ever saw, an EXPIRED one the provider
     * first saw after it expired, and a cancel answered 200 whose message did not end CANCELLED. An EXPIRED message the
     * provider saw before it expired (an attempt whose answer was lost under the faults, then the validity passed while
     * it waited to retry) is counted apart: sendlog never learnt that the provider had it, and did not send it again.
     * A scheduled message the provider first saw before its sendAt is a breach too.
     */
    /** @param breachDetails the first breaches, one line each (message, rule, times), for the run's output */
    record Controls(
            long expired,
            long cancelled,
            long cancelsAnswered,
            long breaches,
            long expiredAfterLostAnswer,
            long scheduled,
            List<String> breachDetails) {}

    private ChaosCheck() {}

    /**
     * Each gateway's provider records (per gateway name: idempotency key to the epoch microseconds of its first accepted
     * submit), fetched on demand.
     */
    interface ProviderRecords {
        Map<String, Map<String, Long>> fetch() throws Exception;
    }

    /**
     * @param acceptedIds   every id a client got a 202 for
     * @param simulatorRecords every idempotency key the provider saw, with the epoch microseconds of its first submit;
     *                         asked for after the log is read, so that everything the log shows the provider accepted was
     *                         recorded by the provider by then (asked before, a send in the moment between made a
     *                         "key the provider never saw" that the provider had seen: a CI run of 2026-12-04)
     * @param cancelledIds  every id whose cancel was answered 200
     * @param callbacksLost callbacks the provider gave up on or that reached no inbox row (a stored callback still
     *                      waiting for its outcome is open, not lost; the run passes only once none is open either)
     */
    static Result check(
            DataSource ds,
            Set<String> acceptedIds,
            ProviderRecords providerRecords,
            Set<String> cancelledIds,
            long callbacksLost)
            throws Exception {
        Histories assembler = new Histories(new RowCodec(new EventCodec()));
        Actors actors = new Actors(ds);
        Map<UUID, List<StoredEvent>> histories = new HashMap<>();
        Set<UUID> rows = new HashSet<>();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.setFetchSize(10_000);
                // Every message with its rows and the publications they name, in one pass: the history as the API shows
                // it.
                try (ResultSet rs =
                        st.executeQuery("SELECT m.id, m.tenant, m.gateway, m.accepted_at, " + LogRows.COLUMNS
                                + ", m.send_at FROM messages m LEFT JOIN message_events e ON e.message_id = m.id "
                                + LogRows.JOIN_PUBLICATION
                                + " ORDER BY m.id, e.seq")) {
                    UUID current = null;
                    String tenant = null;
                    String gateway = null;
                    java.time.Instant acceptedAt = null;
                    java.time.Instant sendAt = null;
                    List<LoggedRow> logged = new ArrayList<>();
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        if (current != null && !current.equals(id)) {
                            histories.put(
                                    current, assembler.assemble(current, tenant, gateway, acceptedAt, sendAt, logged));
                            logged = new ArrayList<>();
                        }
                        current = id;
                        rows.add(id);
                        tenant = rs.getString(2);
                        gateway = rs.getString(3);
                        acceptedAt = rs.getObject(4, OffsetDateTime.class).toInstant();
                        OffsetDateTime sendAtColumn = rs.getObject(5 + LogRows.COUNT, OffsetDateTime.class);
                        sendAt = sendAtColumn == null ? null : sendAtColumn.toInstant();
                        LoggedRow row = LogRows.read(rs, 5, actors);
                        if (row != null) {
                            logged.add(row);
                        }
                    }
                    if (current != null) {
                        histories.put(
                                current, assembler.assemble(current, tenant, gateway, acceptedAt, sendAt, logged));
                    }
                }
            }
            c.commit();
        }
        // The ledger's key is the message id (EffectKeys.charge): a second charge of one message cannot exist as a row;
        // a charge of a message never accepted by the provider, or a sent one without its charge, is what can go wrong.
        Map<UUID, Long> charges = counts(ds, "SELECT effect_key, count(*) FROM ledger GROUP BY effect_key");
        Map<UUID, Long> sendAtMicros = counts(
                ds,
                "SELECT id, (extract(epoch FROM send_at) * 1000000)::bigint FROM messages"
                        + " WHERE send_at IS NOT NULL");
        Map<String, Map<String, Long>> recordsByGateway = providerRecords.fetch();
        // The first submit any provider recorded of each key: what the controls' checks compare times with.
        Map<String, Long> simulatorRecords = new HashMap<>();
        recordsByGateway
                .values()
                .forEach(records -> records.forEach((key, micros) -> simulatorRecords.merge(key, micros, Math::min)));
        Map<String, Long> sentVia = new java.util.TreeMap<>();
        long failedOver = 0;
        long seenByTwo = 0;
        List<String> seenByTwoDetails = new ArrayList<>();
        long lost = 0;
        long sent = 0;
        long delivered = 0;
        long undelivered = 0;
        long unknown = 0;
        long rejected = 0;
        long dead = 0;
        long unfinished = 0;
        long doubleAccepted = 0;
        long missingKeys = 0;
        long unchargedSent = 0;
        long expired = 0;
        long cancelled = 0;
        long breaches = 0;
        long expiredAfterLostAnswer = 0;
        long scheduled = 0;
        long finalsByQuery = 0;
        List<String> breachDetails = new java.util.ArrayList<>();
        for (String text : acceptedIds) {
            UUID id = UUID.fromString(text);
            List<StoredEvent> history = histories.get(id);
            if (!rows.contains(id) || history == null) {
                lost++;
                continue;
            }
            MessageState s;
            try {
                s = MessageFold.fold(history);
            } catch (dev.sendlog.projections.InvalidTransitionException e) {
                // A log with a hole (events the database acknowledged and then lost, as an asynchronous standby's
                // promotion does) no longer folds: a breach, named with its events.
                breaches++;
                breach(breachDetails, id, "its log does not fold (" + e.getMessage() + "): " + types(history));
                continue;
            }
            // A message sent in parts has an acceptance per part; two first parts are two acceptances.
            long acceptances = history.stream()
                    .filter(e -> e.event() instanceof dev.sendlog.events.ProviderAccepted pa && pa.part() == 1)
                    .count();
            if (acceptances > 1) {
                doubleAccepted++;
            }
            String key = "sendlog-" + id;
            List<String> recordedBy = recordsByGateway.entrySet().stream()
                    .filter(g -> g.getValue().containsKey(key))
                    .map(Map.Entry::getKey)
                    .sorted()
                    .toList();
            if (recordedBy.size() > 1) {
                seenByTwo++;
                breach(seenByTwoDetails, id, "submits recorded by " + recordedBy + ": " + types(history));
            }
            if (history.stream()
                    .anyMatch(e -> e.event() instanceof Redriven r && r.reason() == RedriveReason.FAILED_OVER)) {
                failedOver++;
            }
            if (s.providerId() != null) {
                sent++;
                sentVia.merge(s.gateway(), 1L, Long::sum);
                // The gateway the log says accepted it must be the one whose provider recorded it.
                if (!recordsByGateway.getOrDefault(s.gateway(), Map.of()).containsKey(key)) {
                    missingKeys++;
                }
                if (charges.getOrDefault(id, 0L) != 1) {
                    unchargedSent++;
                }
            }
            if ((s.phase() == Phase.DELIVERED || s.phase() == Phase.UNDELIVERED) && learnedByQuery(history)) {
                finalsByQuery++;
            }
            switch (s.phase()) {
                case DELIVERED -> delivered++;
                case UNDELIVERED -> undelivered++;
                case UNKNOWN -> unknown++;
                case REJECTED -> rejected++;
                case DEAD -> dead++;
                case EXPIRED -> expired++;
                case CANCELLED -> cancelled++;
                default -> unfinished++;
            }
            if (s.phase() == Phase.EXPIRED || s.phase() == Phase.CANCELLED) {
                Long submittedMicros = simulatorRecords.get("sendlog-" + id);
                EventType ending = s.phase() == Phase.EXPIRED ? EventType.EXPIRED : EventType.CANCELLED;
                java.time.Instant endedAt = history.stream()
                        .filter(e -> e.type() == ending)
                        .map(StoredEvent::at)
                        .findFirst()
                        .orElseThrow();
                long endedMicros = java.time.temporal.ChronoUnit.MICROS.between(java.time.Instant.EPOCH, endedAt);
                if (charges.containsKey(id)) {
                    breaches++;
                    breach(breachDetails, id, s.phase() + " and charged");
                } else if (submittedMicros != null) {
                    // The provider's record time is when it processed the submit, not when it was sent: a request sent
                    // under a claim made before the message expired may be processed after (the answer lost, the
                    // provider slow under the faults; the request carries validUntil for the provider to honour). A
                    // breach is a submit the provider saw with no claim before the end: a cancelled message is never
                    // claimed, and an expired one is never claimed after it expired.
                    boolean claimedBefore =
                            history.stream().anyMatch(e -> e.type() == EventType.CLAIMED && !e.at().isAfter(endedAt));
                    if (s.phase() == Phase.CANCELLED || (submittedMicros > endedMicros && !claimedBefore)) {
                        breaches++;
                        breach(
                                breachDetails,
                                id,
                                s.phase() + " at " + endedMicros + " us and submitted at " + submittedMicros + " us: "
                                        + types(history));
                    } else {
                        expiredAfterLostAnswer++;
                    }
                }
            }
            if (cancelledIds.contains(text) && s.phase() != Phase.CANCELLED) {
                breaches++;
                breach(breachDetails, id, "cancel answered 200 but the message is " + s.phase());
            }
            Long sendAt = sendAtMicros.get(id);
            if (sendAt != null) {
                scheduled++;
                Long submitted = simulatorRecords.get("sendlog-" + id);
                if (submitted != null && submitted < sendAt) {
                    breaches++;
                    breach(breachDetails, id, "submitted at " + submitted + " us before its sendAt " + sendAt + " us");
                }
            }
            if (s.phase() == Phase.DEAD || s.phase() == Phase.REJECTED || s.phase() == Phase.UNKNOWN) {
                if (s.lastError() == null || s.lastError().isBlank()) {
                    unfinished++;
                }
            }
        }
        long doubleCharged = charges.values().stream().filter(n -> n > 1).count();
        long openCallbacks = count(
                ds,
                "SELECT count(*) FROM callback_inbox i WHERE NOT EXISTS "
                        + "(SELECT 1 FROM callback_outcomes o WHERE o.inbox_id = i.id)");
        return new Result(
                acceptedIds.size(),
                sent,
                delivered,
                undelivered,
                unknown,
                rejected,
                dead,
                unfinished,
                lost,
                doubleCharged,
                doubleAccepted,
                missingKeys,
                unchargedSent,
                openCallbacks,
                callbacksLost,
                new Controls(
                        expired,
                        cancelled,
                        cancelledIds.size(),
                        breaches,
                        expiredAfterLostAnswer,
                        scheduled,
                        List.copyOf(breachDetails)),
                finalsByQuery,
                new Gateways(sentVia, failedOver, seenByTwo, List.copyOf(seenByTwoDetails)));
    }

    /** Whether the first final receipt of a history was asked for (issue 32), not told by a callback. */
    private static boolean learnedByQuery(List<StoredEvent> history) {
        for (StoredEvent e : history) {
            if (e.event() instanceof Receipt r && r.kind().isFinal()) {
                return r.source() == ReceiptSource.QUERY;
            }
        }
        return false;
    }

    private static void breach(List<String> details, UUID id, String what) {
        if (details.size() < 20) {
            details.add(id + ": " + what);
        }
    }

    private static String types(List<StoredEvent> history) {
        StringBuilder out = new StringBuilder();
        for (StoredEvent e : history) {
            out.append(out.isEmpty() ? "" : ",").append(e.type()).append('@').append(e.at());
        }
        return out.toString();
    }

    private static Map<UUID, Long> counts(DataSource ds, String sql) throws SQLException {
        Map<UUID, Long> counts = new HashMap<>();
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                counts.put(rs.getObject(1, UUID.class), rs.getLong(2));
            }
        }
        return counts;
    }

    static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
