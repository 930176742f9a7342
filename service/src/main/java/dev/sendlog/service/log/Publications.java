package dev.sendlog.service.log;

import dev.sendlog.log.Actors;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;

/** Reads and schedules the publications table: one row per batch put on the send stream. */
public final class Publications {
    private static final String TAKE_DUE_SQL = """
            UPDATE publications p SET check_at = ?::timestamptz
            WHERE p.id IN (SELECT id FROM publications WHERE check_at <= ?::timestamptz ORDER BY check_at LIMIT ?
                           FOR UPDATE SKIP LOCKED)
            RETURNING p.id, p.published_at, p.confirm_by, p.actor, p.message_ids, p.seqs, p.epochs""";
    private static final String SET_CHECK_SQL = """
            UPDATE publications p
            SET check_at = CASE WHEN p.check_at = ?::timestamptz THEN c.at::timestamptz
                                ELSE LEAST(p.check_at, c.at::timestamptz) END
            FROM unnest(?::int8[], ?::text[]) AS c(id, at) WHERE p.id = c.id""";

    private static final String INSERT_SQL = """
            INSERT INTO publications (id, published_at, confirm_by, check_at, actor, message_ids, seqs, epochs)
            VALUES (?, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?, ?::uuid[], ?::int4[], ?::int8[])""";

    private final DSLContext dsl;

    public Publications(DSLContext dsl) {
        this.dsl = dsl;
    }

    /** One publication as the timers read it: its messages, the work event of each, and each shard's epoch. */
    public record Publication(
            long id,
            Instant publishedAt,
            Instant confirmBy,
            String actor,
            List<UUID> messageIds,
            List<Integer> seqs,
            List<Long> epochs) {}

    /**
     * Records a publication in {@code tx}: the messages put on the stream, the work event each was published for, and
     * each one's shard epoch. Its first check is at its confirm deadline.
     */
    public static void record(
            DSLContext tx,
            long id,
            Instant publishedAt,
            Instant confirmBy,
            int actorId,
            UUID[] messageIds,
            Integer[] seqs,
            Long[] epochs) {
        tx.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(INSERT_SQL)) {
                ps.setLong(1, id);
                ps.setString(2, publishedAt.toString());
                ps.setString(3, confirmBy.toString());
                ps.setString(4, confirmBy.toString());
                ps.setInt(5, actorId);
                ps.setArray(6, c.createArrayOf("uuid", messageIds));
                ps.setArray(7, c.createArrayOf("int4", seqs));
                ps.setArray(8, c.createArrayOf("int8", epochs));
                ps.executeUpdate();
            }
        });
    }

    /** Which of {@code ids} are recorded (committed). */
    public Set<Long> existing(Collection<Long> ids) {
        Set<Long> found = new HashSet<>();
        if (ids.isEmpty()) {
            return found;
        }
        Long[] array = ids.stream().distinct().toArray(Long[]::new);
        dsl.resultQuery("SELECT id FROM publications WHERE id = ANY(?)", (Object) array)
                .forEach(r -> found.add(r.get(0, Long.class)));
        return found;
    }

    /**
     * Waits up to {@code max} for a publication to be recorded (its transaction commits a moment after its jobs reach
     * the stream); false when it is not by then.
     */
    public boolean awaitRecorded(long id, Duration max) {
        return awaitRecorded(Set.of(id), max).contains(id);
    }

    /** Waits up to {@code max} for publications to be recorded, asking for all still missing at once; returns those seen. */
    public Set<Long> awaitRecorded(Set<Long> ids, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        long pauseMs = 1;
        Set<Long> seen = new HashSet<>();
        Set<Long> missing = new HashSet<>(ids);
        while (true) {
            Set<Long> now = existing(missing);
            seen.addAll(now);
            missing.removeAll(now);
            if (missing.isEmpty() || System.nanoTime() > deadline) {
                return seen;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return seen;
            }
            // Capped low: the commit it waits for is a moment away, and every ms of the wait is a job's latency (a
            // 50 ms cap put a high message's published->claimed p99 at 61 ms behind a normal backlog, bench-priority).
            pauseMs = Math.min(8, pauseMs * 2);
        }
    }

    /**
     * Takes up to {@code limit} publications whose check is due, moving their check to {@code now + lease} in the same
     * statement (committed at once): another process skips them meanwhile, and if this one dies they are due again
     * then. Nothing stays locked while they are worked on.
     */
    public List<Publication> takeDue(Instant now, int limit, Duration lease, Actors actors) {
        List<Publication> due = new ArrayList<>();
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(TAKE_DUE_SQL)) {
                ps.setString(1, leaseEnd(now, lease).toString());
                ps.setString(2, now.toString());
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        due.add(new Publication(
                                rs.getLong(1),
                                rs.getObject(2, OffsetDateTime.class).toInstant(),
                                rs.getObject(3, OffsetDateTime.class).toInstant(),
                                actors.name(rs.getInt(4)),
                                List.of((UUID[]) array(rs.getArray(5))),
                                List.of((Integer[]) array(rs.getArray(6))),
                                List.of((Long[]) array(rs.getArray(7)))));
                    }
                }
            }
        });
        return due;
    }

    private static Object[] array(Array a) throws java.sql.SQLException {
        return (Object[]) a.getArray();
    }

    /**
     * Sets each publication's next check (null: nothing left to watch) after a check that {@link #takeDue} took at
     * {@code takenAt} for {@code lease}. A wake that came in meanwhile (a worker's write brought the check forward while
     * the timer was reading the state before it) is kept when it is sooner: the check's answer was decided without it.
     */
    public void setChecks(Map<Long, Instant> next, Instant takenAt, Duration lease) {
        if (next.isEmpty()) {
            return;
        }
        Long[] ids = next.keySet().toArray(Long[]::new);
        String[] at = new String[ids.length];
        for (int i = 0; i < ids.length; i++) {
            Instant t = next.get(ids[i]);
            at[i] = t == null ? null : t.toString();
        }
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(SET_CHECK_SQL)) {
                ps.setString(1, leaseEnd(takenAt, lease).toString());
                ps.setArray(2, c.createArrayOf("int8", ids));
                ps.setArray(3, c.createArrayOf("text", at));
                ps.executeUpdate();
            }
        });
    }

    /** The check a take leaves while the timer works (to the microsecond, as the database keeps it). */
    private static Instant leaseEnd(Instant takenAt, Duration lease) {
        return takenAt.plus(lease).truncatedTo(ChronoUnit.MICROS);
    }
}
