package dev.sendlog.service.receipts;

import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.Resolved;
import dev.sendlog.projections.MessageState;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Record;

/** Parked provider input: listed for support, resolved by an admin (apply a status, or discard), recorded as events. */
public final class ParkedStore {
    private final DSLContext dsl;
    private final EventStore events;
    private final MessageReader reader;
    private final InstantSource clock;

    public ParkedStore(DSLContext dsl, EventStore events, MessageReader reader, InstantSource clock) {
        this.dsl = dsl;
        this.events = events;
        this.reader = reader;
        this.clock = clock;
    }

    /**
     * Unresolved parked rows, newest first, with one more than asked when there is a next page. A row's message is the
     * one it named when parked, or else the one an admin applied it to.
     */
    public List<ParkedView> list(int limit, Long before, boolean includeResolved) {
        List<ParkedView> views = new ArrayList<>();
        for (Record r : dsl.fetch("""
                SELECT p.id, p.gateway, p.reason, p.parked_at, coalesce(p.message_id, r.message_id), i.body, r.action, r.status,
                       r.note, r.actor
                FROM parked_input p
                JOIN callback_inbox i ON i.id = p.inbox_id
                LEFT JOIN parked_resolutions r ON r.parked_id = p.id
                WHERE (? OR r.parked_id IS NULL) AND p.id < ?
                ORDER BY p.id DESC LIMIT ?""", includeResolved, before == null ? Long.MAX_VALUE : before, limit + 1)) {
            byte[] body = r.get(5, byte[].class);
            String text = utf8(body);
            String resolution = r.get(6) == null
                    ? null
                    : r.get(6, String.class) + (r.get(7) == null ? "" : " " + r.get(7, String.class))
                            + (r.get(8) == null ? "" : ": " + r.get(8, String.class)) + " by " + r.get(9, String.class);
            views.add(new ParkedView(
                    r.get(0, Long.class),
                    r.get(1, String.class),
                    r.get(2, String.class),
                    r.get(3, java.time.OffsetDateTime.class).toInstant(),
                    r.get(4, UUID.class),
                    text,
                    text == null ? Base64.getEncoder().encodeToString(body) : null,
                    resolution));
        }
        return views;
    }

    /**
     * Resolves a parked row: {@code apply} records the status on its message (a RESOLVED event), {@code discard}
     * records the note (and, when a message was matched, a RESOLVED event on it). Once per row: 409 after.
     */
    public void resolve(
            long parkedId, Resolved.Action action, String status, String note, UUID messageOverride, String actor) {
        Record p = dsl.fetchOne("""
                SELECT p.message_id, r.parked_id FROM parked_input p LEFT JOIN parked_resolutions r ON r.parked_id = p.id
                WHERE p.id = ?""", parkedId);
        if (p == null) {
            throw ApiProblem.notFound("no parked input " + parkedId);
        }
        if (p.get(1) != null) {
            throw ApiProblem.conflict("parked input " + parkedId + " is already resolved", List.of());
        }
        UUID messageId = messageOverride != null ? messageOverride : p.get(0, UUID.class);
        ReceiptKind kind = null;
        if (action == Resolved.Action.APPLY) {
            if (messageId == null) {
                throw ApiProblem.conflict(
                        "no message was matched to parked input " + parkedId + "; give messageId, or discard it",
                        List.of());
            }
            try {
                kind = ReceiptKind.valueOf(status);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw ApiProblem.badRequest("status must be DELIVERED, UNDELIVERED or UNKNOWN", List.of());
            }
            if (kind == ReceiptKind.INTERMEDIATE) {
                throw ApiProblem.badRequest("only a final status can be applied", List.of());
            }
        }
        Resolved resolved = new Resolved(parkedId, action, kind, note);
        MessageDetails message = messageId == null
                ? null
                : reader.find(messageId).orElseThrow(() -> ApiProblem.notFound("no message " + messageOverride));
        if (message != null
                && action == Resolved.Action.APPLY
                && message.state().providerId() == null) {
            throw ApiProblem.conflict(
                    "message " + messageId + " was never accepted by a provider; a status cannot be applied",
                    List.of());
        }
        Instant now = clock.instant();
        UUID target = messageId;
        ReceiptKind applied = kind;
        NewEvent event = null;
        if (message != null) {
            MessageState state = message.state();
            event = new NewEvent(target, state.nextSeq(), message.row().shard(), actor, now, resolved)
                    .deciding(state, message.row().tenant());
        }
        NewEvent toAppend = event;
        boolean done;
        try {
            dsl.transaction(cfg -> {
                // The resolution row first: of two admins resolving the row at once, the second waits on the first's
                // key, finds it taken once that commits, and is answered 409 with nothing appended.
                int inserted = cfg.dsl()
                        .execute(
                                """
                        INSERT INTO parked_resolutions (parked_id, action, status, note, actor, message_id, resolved_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?::timestamptz) ON CONFLICT (parked_id) DO NOTHING""",
                                parkedId,
                                action.wire(),
                                applied == null ? null : applied.name(),
                                note,
                                actor,
                                target,
                                now.toString());
                if (inserted == 0) {
                    throw ApiProblem.conflict("parked input " + parkedId + " is already resolved", List.of());
                }
                if (toAppend != null) {
                    events.append(cfg.dsl(), List.of(toAppend));
                }
            });
            done = true;
        } catch (RuntimeException e) {
            if (!EventStore.isSeqTaken(e)) {
                throw e;
            }
            done = false;
        }
        if (!done) {
            throw ApiProblem.conflict("the message changed meanwhile; try again", List.of());
        }
    }

    private static String utf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
