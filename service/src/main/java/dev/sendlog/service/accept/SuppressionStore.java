package dev.sendlog.service.accept;

import static dev.sendlog.schema.jooq.Tables.API_KEYS;
import static dev.sendlog.schema.jooq.Tables.SUPPRESSION_CHANGES;

import dev.sendlog.schema.jooq.tables.SuppressionChanges;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.impl.DSL;

/**
 * A tenant's suppression list (API.md, "Suppression list"), kept as its changes: {@code suppression_changes} is
 * append-only and a recipient is listed while its latest change is an ADD. Writers take the table in EXCLUSIVE mode for
 * their short transaction, so change ids commit in id order: a reader that has seen id n has seen every change up to n
 * (what the workers' caches rely on to catch up by id). Each change sends {@code NOTIFY sendlog_suppressions} in its own
 * transaction, delivered at commit.
 */
public final class SuppressionStore {
    /** The LISTEN/NOTIFY channel a change is announced on; the payload is the change's id. */
    public static final String CHANNEL = "sendlog_suppressions";

    public static final String ADD = "ADD";
    public static final String REMOVE = "REMOVE";
    private static final SuppressionChanges T = SUPPRESSION_CHANGES;

    /** A listed recipient: why, since when and by whom (its latest change). */
    public record Entry(String recipient, String reason, Instant since, String actor) {}

    /** One recorded change. {@code reason} may be null on a REMOVE. */
    public record Change(
            long id, String tenant, String recipient, String action, String reason, String actor, Instant at) {
        public boolean adds() {
            return ADD.equals(action);
        }
    }

    /** What a PUT did: the entry as listed now, and whether this call added it (false: it was already listed). */
    public record Added(Entry entry, boolean added) {}

    private final DSLContext dsl;
    private final InstantSource clock;

    public SuppressionStore(DSLContext dsl, InstantSource clock) {
        this.dsl = dsl;
        this.clock = clock;
    }

    /**
     * Lists {@code recipient} for {@code tenant}. Idempotent: a recipient already listed stays as it is (its first
     * reason, time and actor) and nothing is recorded; to change the reason, remove it and add it again.
     */
    public Added add(String tenant, String recipient, String reason, String actor) {
        return dsl.transactionResult(cfg -> {
            DSLContext tx = cfg.dsl();
            lock(tx);
            Optional<Change> latest = latest(tx, tenant, recipient);
            if (latest.isPresent() && latest.get().adds()) {
                return new Added(entry(latest.get()), false);
            }
            Change change = append(tx, tenant, recipient, ADD, reason, actor);
            return new Added(entry(change), true);
        });
    }

    /** Takes {@code recipient} off the list; false (nothing recorded) when it was not listed. */
    public boolean remove(String tenant, String recipient, String reason, String actor) {
        return dsl.transactionResult(cfg -> {
            DSLContext tx = cfg.dsl();
            lock(tx);
            Optional<Change> latest = latest(tx, tenant, recipient);
            if (latest.isEmpty() || !latest.get().adds()) {
                return false;
            }
            append(tx, tenant, recipient, REMOVE, reason, actor);
            return true;
        });
    }

    /** Whether {@code recipient} is listed for {@code tenant} now: one indexed lookup (the cache's fallback). */
    public boolean isSuppressed(String tenant, String recipient) {
        return latest(dsl, tenant, recipient).map(Change::adds).orElse(false);
    }

    /** Up to {@code limit} listed recipients of {@code tenant} after {@code after} (null: from the start), in recipient order. */
    public List<Entry> list(String tenant, String after, int limit) {
        var latest = dsl.select(T.ID, T.TENANT, T.RECIPIENT, T.ACTION, T.REASON, T.ACTOR, T.AT)
                .distinctOn(T.RECIPIENT)
                .from(T)
                .where(T.TENANT.eq(tenant))
                .and(after == null ? DSL.noCondition() : T.RECIPIENT.gt(after))
                .orderBy(T.RECIPIENT, T.ID.desc())
                .asTable("latest");
        return dsl.selectFrom(latest)
                .where(latest.field(T.ACTION).eq(ADD))
                .orderBy(latest.field(T.RECIPIENT))
                .limit(limit)
                .fetch(r -> entry(change(
                        r,
                        latest.field(T.ID),
                        latest.field(T.TENANT),
                        latest.field(T.RECIPIENT),
                        latest.field(T.ACTION),
                        latest.field(T.REASON),
                        latest.field(T.ACTOR),
                        latest.field(T.AT))));
    }

    /** Up to {@code limit} changes of one recipient of {@code tenant}, newest first, older than {@code beforeId} if given. */
    public List<Change> history(String tenant, String recipient, Long beforeId, int limit) {
        return dsl.selectFrom(T)
                .where(T.TENANT.eq(tenant))
                .and(T.RECIPIENT.eq(recipient))
                .and(beforeId == null ? DSL.noCondition() : T.ID.lt(beforeId))
                .orderBy(T.ID.desc())
                .limit(limit)
                .fetch(r -> change(r, T.ID, T.TENANT, T.RECIPIENT, T.ACTION, T.REASON, T.ACTOR, T.AT));
    }

    /** Up to {@code limit} changes of every tenant after change {@code afterId}, in id order (a cache catching up). */
    public List<Change> changesAfter(long afterId, int limit) {
        return dsl.selectFrom(T)
                .where(T.ID.gt(afterId))
                .orderBy(T.ID)
                .limit(limit)
                .fetch(r -> change(r, T.ID, T.TENANT, T.RECIPIENT, T.ACTION, T.REASON, T.ACTOR, T.AT));
    }

    /**
     * Every tenant's current list as the latest change of each listed recipient, in one statement (one snapshot): the
     * highest id among them all is the highest id in the table, from which a cache goes on with {@link #changesAfter}.
     */
    public List<Change> latestOfEach() {
        return dsl.select(T.ID, T.TENANT, T.RECIPIENT, T.ACTION, T.REASON, T.ACTOR, T.AT)
                .distinctOn(T.TENANT, T.RECIPIENT)
                .from(T)
                .orderBy(T.TENANT, T.RECIPIENT, T.ID.desc())
                .fetch(r -> change(r, T.ID, T.TENANT, T.RECIPIENT, T.ACTION, T.REASON, T.ACTOR, T.AT));
    }

    /** Whether any client key belongs to {@code tenant}: staff name a tenant, and a typo must not start a list of its own. */
    public boolean tenantExists(String tenant) {
        return dsl.fetchExists(API_KEYS, API_KEYS.TENANT.eq(tenant).and(API_KEYS.ROLE.eq("client")));
    }

    /** Serialises writers (readers are not blocked) so that ids commit in order; see the class comment. */
    private static void lock(DSLContext tx) {
        tx.execute("LOCK TABLE suppression_changes IN EXCLUSIVE MODE");
    }

    private static Optional<Change> latest(DSLContext ctx, String tenant, String recipient) {
        return ctx.selectFrom(T)
                .where(T.TENANT.eq(tenant))
                .and(T.RECIPIENT.eq(recipient))
                .orderBy(T.ID.desc())
                .limit(1)
                .fetchOptional(r -> change(r, T.ID, T.TENANT, T.RECIPIENT, T.ACTION, T.REASON, T.ACTOR, T.AT));
    }

    private Change append(DSLContext tx, String tenant, String recipient, String action, String reason, String actor) {
        // As PostgreSQL keeps it (microseconds): the answer to this PUT shows the same time as every later read.
        Instant at = clock.instant().truncatedTo(ChronoUnit.MICROS);
        long id = tx.insertInto(T, T.TENANT, T.RECIPIENT, T.ACTION, T.REASON, T.ACTOR, T.AT)
                .values(tenant, recipient, action, reason, actor, at)
                .returning(T.ID)
                .fetchOne(T.ID);
        // Delivered at commit, to every process listening (the send workers' caches); nothing if this rolls back.
        tx.execute("SELECT pg_notify({0}, {1})", DSL.val(CHANNEL), DSL.val(Long.toString(id)));
        return new Change(id, tenant, recipient, action, reason, actor, at);
    }

    private static Entry entry(Change c) {
        return new Entry(c.recipient(), c.reason(), c.at(), c.actor());
    }

    private static Change change(
            Record r,
            org.jooq.Field<Long> id,
            org.jooq.Field<String> tenant,
            org.jooq.Field<String> recipient,
            org.jooq.Field<String> action,
            org.jooq.Field<String> reason,
            org.jooq.Field<String> actor,
            org.jooq.Field<Instant> at) {
        return new Change(
                r.get(id), r.get(tenant), r.get(recipient), r.get(action), r.get(reason), r.get(actor), r.get(at));
    }
}
