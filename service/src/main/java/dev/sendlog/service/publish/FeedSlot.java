package dev.sendlog.service.publish;

import java.time.Instant;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.exception.DataAccessException;

/**
 * The database side of the change-data-capture feed: the server's readiness for it, the publication, the slot's
 * bookkeeping row in {@code feed_slots} (epoch, holder, whether the work committed before the slot existed was
 * published), the slot's state for metrics and health, and dropping an abandoned slot.
 */
public final class FeedSlot {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FeedSlot.class);
    private static final String DUPLICATE_OBJECT = "42710";
    private static final String UNIQUE_VIOLATION = "23505";
    private static final String INVALID_OBJECT_DEFINITION = "42P17";
    private static final String FEATURE_NOT_SUPPORTED = "0A000";

    private final DSLContext dsl;
    private final String slot;
    private final String publication;

    public FeedSlot(DSLContext dsl, String slot, String publication) {
        this.dsl = dsl;
        this.slot = slot;
        this.publication = publication;
    }

    public String name() {
        return slot;
    }

    public String publication() {
        return publication;
    }

    /** What the feed reads: every new message, and the REDRIVEN rows of the log; only the columns it needs. */
    static final String TABLES = "messages (id, shard, xid, position, accepted_at), "
            + "message_events (message_id, seq, type, attempt, shard, xid, position, at)";
    /** The same without the REDRIVEN row filter, for a server that refuses filters (the feed filters itself then). */
    private static final String FILTER = " WHERE (" + dev.sendlog.events.LogPredicates.WORK_UNQUALIFIED + ")";

    /**
     * Refuses (with what to do about it) a server that cannot feed a logical slot, and creates the publication if it
     * is missing (or brings one made before the lean log, which named message_events alone, to the tables above):
     * inserts published under the partitioned tables' own names, so that partitions created later are covered without
     * a change.
     */
    public void prepare() {
        String walLevel = String.valueOf(dsl.fetchValue("SHOW wal_level"));
        if (!"logical".equals(walLevel)) {
            throw new IllegalStateException(
                    "pipeline.feed is cdc, but this PostgreSQL runs with wal_level = " + walLevel
                            + "; logical decoding needs wal_level = logical (set it in postgresql.conf and restart the server), "
                            + "or set pipeline.feed: polling");
        }
        int slots = Integer.parseInt(String.valueOf(dsl.fetchValue("SHOW max_replication_slots")));
        if (slots < 1) {
            throw new IllegalStateException(
                    "pipeline.feed is cdc, but max_replication_slots = 0 on this PostgreSQL; raise it");
        }
        if (dsl.fetchExists(dsl.selectOne().from("pg_publication").where("pubname = ?", publication))) {
            if (!dsl.fetchExists(dsl.selectOne()
                    .from("pg_publication_tables")
                    .where("pubname = ? AND tablename = 'messages'", publication))) {
                LOG.info(
                        "publication {} predates the lean log; it now names messages and the REDRIVEN rows",
                        publication);
                alter();
            }
            return;
        }
        try {
            create(FILTER);
        } catch (DataAccessException e) {
            if (!INVALID_OBJECT_DEFINITION.equals(e.sqlState()) && !FEATURE_NOT_SUPPORTED.equals(e.sqlState())) {
                throw e;
            }
            // Some servers refuse the row filter on this column; then every insert is sent and the feed filters.
            LOG.warn(
                    "the server refused the publication's row filter ({}); publishing every insert into message_events, "
                            + "the feed keeps the work events",
                    e.getMessage());
            create("");
        }
    }

    private void alter() {
        try {
            dsl.execute("ALTER PUBLICATION " + publication + " SET TABLE " + TABLES + FILTER);
        } catch (DataAccessException e) {
            if (!INVALID_OBJECT_DEFINITION.equals(e.sqlState()) && !FEATURE_NOT_SUPPORTED.equals(e.sqlState())) {
                throw e;
            }
            dsl.execute("ALTER PUBLICATION " + publication + " SET TABLE " + TABLES);
        }
    }

    private void create(String rowFilter) {
        try {
            dsl.execute("CREATE PUBLICATION " + publication + " FOR TABLE " + TABLES + rowFilter
                    + " WITH (publish = 'insert', publish_via_partition_root = true)");
        } catch (DataAccessException e) {
            // Another process created it since the check. Committed before this statement began: 42710. Committed
            // while this one waited on the catalog's unique index (pollers started together): 23505.
            if (!DUPLICATE_OBJECT.equals(e.sqlState()) && !UNIQUE_VIOLATION.equals(e.sqlState())) {
                throw e;
            }
            LOG.info("publication {} was created by another process at the same moment", publication);
        }
    }

    public boolean exists() {
        return dsl.fetchExists(dsl.selectOne().from("pg_replication_slots").where("slot_name = ?", slot));
    }

    /**
     * Before the slot is (re)created: what was committed before it exists must be published once more. Returns whether
     * the slot had been taken before, so is now gone: dropped, or lost with a primary whose standby took over.
     */
    public boolean markNotCaughtUp() {
        Record r = dsl.fetchOne(
                "INSERT INTO feed_slots (slot_name) VALUES (?) "
                        + "ON CONFLICT (slot_name) DO UPDATE SET caught_up_at = NULL "
                        + "RETURNING epoch, holder",
                slot);
        return r.get(1) != null;
    }

    /** A process took the slot: the next epoch, and whether the catch-up is still owed. */
    public record Taken(long epoch, boolean caughtUp) {}

    public Taken take(String holder) {
        Record r = dsl.fetchOne(
                "INSERT INTO feed_slots (slot_name, epoch, holder, taken_at) VALUES (?, 1, ?, now()) "
                        + "ON CONFLICT (slot_name) DO UPDATE SET epoch = feed_slots.epoch + 1, holder = excluded.holder, "
                        + "taken_at = excluded.taken_at RETURNING epoch, caught_up_at",
                slot,
                holder);
        return new Taken(r.get(0, Long.class), r.get(1) != null);
    }

    public void markCaughtUp() {
        dsl.execute("UPDATE feed_slots SET caught_up_at = now() WHERE slot_name = ?", slot);
    }

    /** The slot as the server sees it. */
    public record State(
            boolean active,
            Integer activePid,
            String walStatus,
            long retainedWalBytes,
            long lagBytes,
            String holder,
            long epoch,
            Instant takenAt) {}

    public Optional<State> state() {
        Record r = dsl.fetchOne("""
                SELECT s.active, s.active_pid, s.wal_status,
                       coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), s.restart_lsn), 0)::bigint,
                       coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), s.confirmed_flush_lsn), 0)::bigint,
                       f.holder, coalesce(f.epoch, 0), f.taken_at
                FROM pg_replication_slots s LEFT JOIN feed_slots f ON f.slot_name = s.slot_name
                WHERE s.slot_name = ?""", slot);
        if (r == null) {
            return Optional.empty();
        }
        return Optional.of(new State(
                r.get(0, Boolean.class),
                r.get(1, Integer.class),
                r.get(2, String.class),
                r.get(3, Long.class),
                r.get(4, Long.class),
                r.get(5, String.class),
                r.get(6, Long.class),
                r.get(7, Instant.class)));
    }

    /**
     * Drops the slot (so it no longer holds WAL back) and marks it not caught up. A slot a process still reads is refused
     * unless {@code force}, which first ends that process's replication connection.
     */
    public boolean drop(boolean force) {
        Optional<State> state = state();
        if (state.isEmpty()) {
            forget();
            return false;
        }
        if (state.get().active()) {
            if (!force) {
                throw new IllegalStateException("slot " + slot + " is being read by backend pid "
                        + state.get().activePid() + " (" + state.get().holder()
                        + "); stop that poller first, or pass --force");
            }
            dsl.fetch("SELECT pg_terminate_backend(?, 10000)", state.get().activePid());
        }
        dsl.fetch("SELECT pg_drop_replication_slot(?)", slot);
        forget();
        return true;
    }

    /** The row stays, so epochs keep rising across slots of the same name; a slot made again must catch up first. */
    private void forget() {
        dsl.execute("UPDATE feed_slots SET caught_up_at = NULL, holder = NULL WHERE slot_name = ?", slot);
    }
}
