package dev.sendlog.events;

import java.time.Instant;
import java.util.UUID;

/**
 * The one mapping between events and typed rows (the lean log's layout). Every type keeps exactly what its record
 * holds, so an event read back equals the event written; COMPACTED snapshots are the codec's packed JSON form, deflated.
 * ACCEPTED and PUBLISHED are never rows of their own: the message row and the publication row are.
 */
public final class RowCodec {
    static final short STAGE_OTHER = 0;
    static final short STAGE_CHECK = 1;
    static final short STAGE_PROVIDER = 2;
    /** A suppressed recipient: the code says it all, so the row holds no text (its reason is always "suppressed"). */
    static final short STAGE_SUPPRESSION = 3;

    static final short ACTION_APPLY = 1;
    static final short ACTION_DISCARD = 2;
    /** A receipt learned by a status query (issue 32); a callback's row leaves the code null. */
    static final short RECEIPT_BY_QUERY = 2;

    private final EventCodec codec;

    public RowCodec(EventCodec codec) {
        this.codec = codec;
    }

    public EventCodec codec() {
        return codec;
    }

    /** The row of {@code event} at {@code seq}, written by {@code actor} at {@code at}; {@code publication} may be null. */
    public EventRow toRow(UUID messageId, int seq, String actor, Instant at, MessageEvent event, Long publication) {
        Row r = new Row();
        switch (event) {
            case Accepted a -> throw new IllegalArgumentException("ACCEPTED is the messages row, not an event row");
            case Published p -> throw new IllegalArgumentException("PUBLISHED is a publication row, not an event row");
            case Scheduled sc ->
                throw new IllegalArgumentException("SCHEDULED is the messages row's send_at, not an event row");
            case Claimed c -> {
                r.attempt = small(c.attempt(), "attempt");
                r.time2 = c.deadline();
                // The worker is the row's actor; kept apart only if some writer ever names another.
                r.detail = c.worker().equals(actor) ? null : c.worker();
            }
            case ProviderAccepted pa -> {
                r.attempt = small(pa.attempt(), "attempt");
                r.gateway = pa.gateway();
                r.providerId = pa.providerId();
                // A part of a concatenated message: its number and the count; a single message leaves both null.
                if (pa.parts() > 1) {
                    r.code = (short) pa.part();
                    r.kind = (short) pa.parts();
                }
            }
            case AttemptFailed f -> {
                r.attempt = small(f.attempt(), "attempt");
                r.detail = f.error();
                r.time2 = f.nextAttemptAt();
            }
            case Rejected rj -> {
                r.code = switch (rj.stage()) {
                    case Rejected.STAGE_CHECK -> STAGE_CHECK;
                    case Rejected.STAGE_PROVIDER -> STAGE_PROVIDER;
                    case Rejected.STAGE_SUPPRESSION ->
                        rj.equals(Rejected.suppressed()) ? STAGE_SUPPRESSION : STAGE_OTHER;
                    default -> STAGE_OTHER;
                };
                r.detail = r.code == STAGE_SUPPRESSION ? null : rj.reason();
                r.detail2 = r.code == STAGE_OTHER ? rj.stage() : null;
            }
            case Redriven rd -> {
                r.attempt = small(rd.attempt(), "attempt");
                r.code = (short) (rd.reason().ordinal() + 1);
                r.gateway = rd.gateway();
                r.detail = rd.error();
            }
            case Dead d -> {
                r.attempt = small(d.attempts(), "attempts");
                r.detail = d.reason();
            }
            case Receipt rc -> {
                r.kind = (short) (rc.kind().ordinal() + 1);
                r.gateway = rc.gateway();
                r.providerId = rc.providerId();
                r.detail = rc.providerStatus();
                r.time2 = rc.providerTimestamp();
                r.detail2 = rc.errorCode();
                r.ref = rc.inboxId();
                // Null for a callback: rows written before the source existed read the same as new ones.
                r.code = rc.source() == ReceiptSource.QUERY ? RECEIPT_BY_QUERY : null;
            }
            case OutcomeUnknown u -> r.detail = u.reason();
            case Resolved rs -> {
                r.code = rs.action() == Resolved.Action.APPLY ? ACTION_APPLY : ACTION_DISCARD;
                r.kind = rs.status() == null ? null : (short) (rs.status().ordinal() + 1);
                r.ref = rs.parkedId();
                r.detail = rs.note();
            }
            case Compacted c -> r.packed = codec.packSnapshot(c);
            case Expired x -> {
                // Nothing but the type: the validity is the message row's, the decider the actor.
            }
            case Cancelled x -> {
                // Nothing but the type: who cancelled is the actor.
            }
        }
        return new EventRow(
                messageId,
                seq,
                event.type(),
                actor,
                at,
                r.attempt,
                r.code,
                r.kind,
                r.ref,
                publication,
                r.time2,
                r.gateway,
                r.providerId,
                r.detail,
                r.detail2,
                r.packed);
    }

    /** The event a typed row holds; throws {@link UnreadableEventException} when the row does not fit its type. */
    public MessageEvent fromRow(EventRow r) {
        try {
            return switch (r.type()) {
                case ACCEPTED, PUBLISHED, SCHEDULED ->
                    throw new UnreadableEventException(r.type() + " is never a typed row");
                case CLAIMED -> new Claimed(r.attempt(), r.detail() != null ? r.detail() : r.actor(), r.time2());
                case PROVIDER_ACCEPTED ->
                    r.kind() == null
                            ? new ProviderAccepted(r.attempt(), r.gateway(), r.providerId())
                            : new ProviderAccepted(r.attempt(), r.gateway(), r.providerId(), r.code(), r.kind());
                case ATTEMPT_FAILED -> new AttemptFailed(r.attempt(), r.detail(), r.time2());
                case REJECTED ->
                    r.code() == STAGE_SUPPRESSION
                            ? Rejected.suppressed()
                            : new Rejected(
                                    switch (r.code()) {
                                        case STAGE_CHECK -> Rejected.STAGE_CHECK;
                                        case STAGE_PROVIDER -> Rejected.STAGE_PROVIDER;
                                        default -> r.detail2();
                                    },
                                    r.detail());
                case REDRIVEN ->
                    new Redriven(r.attempt(), RedriveReason.values()[r.code() - 1], r.gateway(), r.detail());
                case DEAD -> new Dead(r.attempt(), r.detail());
                case RECEIPT ->
                    new Receipt(
                            ReceiptKind.values()[r.kind() - 1],
                            r.gateway(),
                            r.providerId(),
                            r.detail(),
                            r.time2(),
                            r.detail2(),
                            r.ref(),
                            r.code() != null && r.code() == RECEIPT_BY_QUERY
                                    ? ReceiptSource.QUERY
                                    : ReceiptSource.CALLBACK);
                case OUTCOME_UNKNOWN -> new OutcomeUnknown(r.detail());
                case RESOLVED ->
                    new Resolved(
                            r.ref(),
                            r.code() == ACTION_APPLY ? Resolved.Action.APPLY : Resolved.Action.DISCARD,
                            r.kind() == null ? null : ReceiptKind.values()[r.kind() - 1],
                            r.detail());
                case COMPACTED -> codec.unpackSnapshot(r.messageId(), r.packed());
                case EXPIRED -> new Expired();
                case CANCELLED -> new Cancelled();
            };
        } catch (NullPointerException | IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            throw new UnreadableEventException(
                    "event " + r.type() + " at seq " + r.seq() + " of " + r.messageId() + " does not fit its row: " + e,
                    e);
        }
    }

    private static short small(int value, String what) {
        if (value < 0 || value > Short.MAX_VALUE) {
            throw new IllegalArgumentException(what + " out of range for its column: " + value);
        }
        return (short) value;
    }

    /** The columns one conversion fills. */
    private static final class Row {
        Short attempt;
        Short code;
        Short kind;
        Long ref;
        Instant time2;
        String gateway;
        String providerId;
        String detail;
        String detail2;
        byte[] packed;
    }
}
