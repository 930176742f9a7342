package dev.sendlog.service.projection;

import static dev.sendlog.schema.jooq.Tables.MESSAGES;

import dev.sendlog.events.FinalStatus;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds what search by status reads from the log itself: the final status each event gave its message, kept on that
 * event's row (the final index). Every history is folded again, message by message in id order, and a row whose mark
 * differs from what the fold says is corrected (its status and tenant columns only; the event itself is never
 * changed). On a healthy log nothing differs; after an upgrade, a restore or a bug, this puts the index right.
 * Snapshots carry the final status of the state they fold.
 */
public final class ProjectionRebuild {
    private static final Logger LOG = LoggerFactory.getLogger(ProjectionRebuild.class);
    private static final int BATCH = 500;

    private ProjectionRebuild() {}

    /** Returns how many rows' marks were corrected. */
    public static long rebuild(DSLContext dsl, MessageReader reader) {
        long corrected = 0;
        long messages = 0;
        UUID after = new UUID(0, 0);
        while (true) {
            List<UUID> ids = dsl.select(MESSAGES.ID)
                    .from(MESSAGES)
                    .where(MESSAGES.ID.gt(after))
                    .orderBy(MESSAGES.ID)
                    .limit(BATCH)
                    .fetch(MESSAGES.ID);
            if (ids.isEmpty()) {
                LOG.info("final index rebuilt messages={} rows_corrected={}", messages, corrected);
                return corrected;
            }
            Map<UUID, MessageDetails> found = reader.findMany(ids);
            Map<UUID, Map<Integer, FinalStatus>> stored = storedMarks(dsl, ids);
            for (UUID id : ids) {
                MessageDetails d = found.get(id);
                if (d == null) {
                    continue;
                }
                messages++;
                Map<Integer, FinalStatus> want = marks(d.events());
                Map<Integer, FinalStatus> have = stored.getOrDefault(id, Map.of());
                for (int seq : union(want, have)) {
                    if (!Objects.equals(want.get(seq), have.get(seq))) {
                        FinalStatus s = want.get(seq);
                        corrected += dsl.execute(
                                "UPDATE message_events SET status = ?, tenant = ? WHERE message_id = ? AND seq = ?",
                                s == null ? null : s.code(),
                                s == null ? null : d.row().tenant(),
                                id,
                                seq);
                    }
                }
            }
            after = ids.getLast();
        }
    }

    /** The mark each stored seq should carry: the status its event made final (a snapshot: the final status it folds). */
    static Map<Integer, FinalStatus> marks(List<StoredEvent> history) {
        Map<Integer, FinalStatus> marks = new HashMap<>();
        MessageState state = null;
        for (StoredEvent e : history) {
            if (state == null) {
                state = MessageFold.fold(List.of(e));
                if (e.event() instanceof dev.sendlog.events.Compacted
                        && state.status().isFinal()) {
                    marks.put(e.seq(), FinalStatus.ofName(state.status().name()));
                }
                continue;
            }
            MessageState before = state;
            Decisions.finalStatusAfter(before, e).ifPresent(s -> marks.put(e.seq(), s));
            state = MessageFold.evolve(before, e);
        }
        return marks;
    }

    private static Map<UUID, Map<Integer, FinalStatus>> storedMarks(DSLContext dsl, List<UUID> ids) {
        Map<UUID, Map<Integer, FinalStatus>> marks = new HashMap<>();
        dsl.resultQuery(
                        "SELECT message_id, seq, status FROM message_events WHERE message_id = ANY(?) AND status IS NOT NULL",
                        (Object) ids.toArray(UUID[]::new))
                .forEach(r -> marks.computeIfAbsent(r.get(0, UUID.class), k -> new HashMap<>())
                        .put(r.get(1, Integer.class), FinalStatus.ofCode(r.get(2, Short.class))));
        return marks;
    }

    private static List<Integer> union(Map<Integer, ?> a, Map<Integer, ?> b) {
        List<Integer> seqs = new ArrayList<>(a.keySet());
        b.keySet().stream().filter(k -> !a.containsKey(k)).forEach(seqs::add);
        return seqs;
    }
}
