package dev.sendlog.service.reconcile;

import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptSource;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.ReceiptDecision;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.receipts.CallbackParser;
import dev.sendlog.service.receipts.ParkReason;
import dev.sendlog.service.receipts.ParsedCallback;
import dev.sendlog.service.receipts.Vocabulary;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Records what a status query answered about one message, mapped like a callback (the gateway's vocabulary and timestamp
 * format, {@link CallbackParser}) and stored like one: the raw answer is an inbox row, so a RECEIPT points at the exact
 * bytes and an answer that cannot be mapped is parked with them, as support already reads parked callbacks. The row, its
 * outcome and the RECEIPT (source QUERY) or the parked row commit in one transaction, so the inbox sweeper never sees
 * the row without its outcome and the callback worker never decides it.
 *
 * <p>An answer whose exact bytes a callback of the gateway already delivered is left to that callback: it said the
 * same thing first.
 */
final class QueryAnswers {
    private static final int MAX_TRIES = 5;
    private static final String FIND_OR_INSERT_SQL = """
            WITH found AS (SELECT id FROM callback_inbox WHERE gateway = ? AND body_hash = ?),
            inserted AS (
                INSERT INTO callback_inbox (gateway, received_at, body, body_hash)
                SELECT ?, ?::timestamptz, ?, ? WHERE NOT EXISTS (SELECT 1 FROM found)
                RETURNING id
            )
            SELECT id, false FROM found UNION ALL SELECT id, true FROM inserted""";
    private static final String OUTCOME_SQL = """
            INSERT INTO callback_outcomes (inbox_id, outcome, message_id, event_seq, decided_at)
            VALUES (?, ?, ?, ?, ?::timestamptz)""";
    private static final String PARK_SQL = """
            INSERT INTO parked_input (inbox_id, gateway, reason, message_id, parked_at) VALUES (?, ?, ?, ?, ?::timestamptz)""";

    /** What became of an answer. */
    enum Result {
        /** A RECEIPT that makes the message DELIVERED or UNDELIVERED. */
        FINAL,
        /** A RECEIPT that leaves the message in flight (an intermediate or the provider's own UNKNOWN). */
        NOT_FINAL,
        /** The message already had this status and time: nothing new. */
        DUPLICATE,
        /** The answer could not be mapped (or named another provider id): parked with its raw bytes. */
        PARKED,
        /** A callback delivered these exact bytes: its own outcome stands. */
        TOLD_ALREADY,
        /** The message is no longer waiting for a receipt (final, or not accepted): nothing recorded. */
        MOVED_ON
    }

    private final DSLContext dsl;
    private final EventStore store;
    private final MessageReader reader;
    private final InstantSource clock;
    private final String actor;

    QueryAnswers(DSLContext dsl, EventStore store, MessageReader reader, InstantSource clock, String actor) {
        this.dsl = dsl;
        this.store = store;
        this.reader = reader;
        this.clock = clock;
        this.actor = actor;
    }

    Result record(UUID messageId, String gateway, Vocabulary vocabulary, byte[] body) {
        CallbackParser.Result parsed = CallbackParser.parse(body, vocabulary);
        byte[] hash = sha256(body);
        for (int attempt = 1; ; attempt++) {
            Optional<MessageDetails> found = reader.find(messageId);
            if (found.isEmpty()) {
                throw new IllegalStateException("a message asked about does not exist message_id=" + messageId);
            }
            MessageDetails details = found.get();
            try {
                return dsl.transactionResult(cfg -> inTransaction(cfg.dsl(), details, gateway, parsed, body, hash));
            } catch (RuntimeException e) {
                // Another writer took the seq (a callback landed meanwhile), or stored the same bytes first: decide
                // again.
                if (attempt < MAX_TRIES && (EventStore.isSeqTaken(e) || isUniqueViolation(e))) {
                    continue;
                }
                throw e;
            }
        }
    }

    private Result inTransaction(
            DSLContext tx,
            MessageDetails details,
            String gateway,
            CallbackParser.Result parsed,
            byte[] body,
            byte[] hash) {
        MessageState state = details.state();
        UUID messageId = state.messageId();
        if (!(state.phase().isProviderAccepted() && !state.phase().isFinal())) {
            return Result.MOVED_ON;
        }
        Instant now = clock.instant();
        long[] row = inboxRow(tx, gateway, body, hash, now);
        if (row[1] == 0) {
            return Result.TOLD_ALREADY;
        }
        long inboxId = row[0];
        ParkReason park = parsed.parkReason();
        ParsedCallback answer = parsed.callback();
        if (park == null && !answer.providerId().equals(state.providerId())) {
            park = ParkReason.of(
                    ParkReason.Kind.ID_MISMATCH,
                    "provider id " + answer.providerId() + " is not the id " + state.providerId() + " of message "
                            + messageId);
        }
        if (park != null) {
            String reason = park.text() + " (status query)";
            tx.execute(OUTCOME_SQL, inboxId, "parked", messageId, null, now.toString());
            tx.execute(PARK_SQL, inboxId, gateway, reason, messageId, now.toString());
            return Result.PARKED;
        }
        Receipt receipt = new Receipt(
                answer.kind(),
                gateway,
                answer.providerId(),
                answer.status(),
                answer.timestamp(),
                answer.errorCode(),
                inboxId,
                ReceiptSource.QUERY);
        ReceiptDecision decision = Decisions.receipt(state, receipt);
        if (decision != ReceiptDecision.APPEND) {
            tx.execute(OUTCOME_SQL, inboxId, "duplicate", messageId, null, now.toString());
            return Result.DUPLICATE;
        }
        // With the status it gives the message: search by final status, and a status webhook delivery if one is asked
        // for.
        NewEvent withFinal = new NewEvent(
                        messageId, state.nextSeq(), details.row().shard(), actor, now, receipt)
                .deciding(state, details.row().tenant());
        store.append(tx, List.of(withFinal));
        tx.execute(OUTCOME_SQL, inboxId, "appended", messageId, withFinal.seq(), now.toString());
        return answer.kind().isFinal() ? Result.FINAL : Result.NOT_FINAL;
    }

    /** The inbox row of these bytes on this gateway: {id, 1} when inserted now, {id, 0} when a callback stored them. */
    private static long[] inboxRow(DSLContext tx, String gateway, byte[] body, byte[] hash, Instant now) {
        long[] row = new long[2];
        tx.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(FIND_OR_INSERT_SQL)) {
                ps.setString(1, gateway);
                ps.setBytes(2, hash);
                ps.setString(3, gateway);
                ps.setString(4, now.toString());
                ps.setBytes(5, body);
                ps.setBytes(6, hash);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    row[0] = rs.getLong(1);
                    row[1] = rs.getBoolean(2) ? 1 : 0;
                }
            }
        });
        return row;
    }

    private static byte[] sha256(byte[] body) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static boolean isUniqueViolation(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.sql.SQLException sql && "23505".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
