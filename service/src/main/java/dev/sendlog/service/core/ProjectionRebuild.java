package dev.sendlog.service.core;

import static dev.sendlog.schema.jooq.Tables.MESSAGES;

import dev.sendlog.events.Shards;
import dev.sendlog.service.dispatch.StatusProjection;
import dev.sendlog.service.dispatch.StatusRow;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Drops the status projection and folds it again from the log, message by message in id order. A projector running
 * meanwhile keeps writing newer states; every write keeps the newest seq, so both converge.
 */
public final class ProjectionRebuild {
    private static final int BATCH = 500;

    private ProjectionRebuild() {
    }

    /** Returns how many messages were projected. */
    public static long rebuild(DSLContext dsl, MessageReader reader, int shardCount, java.time.Duration reconcileWindow) {
        dsl.execute("TRUNCATE message_status");
        long done = 0;
        UUID after = new UUID(0, 0);
        while (true) {
            List<UUID> ids = dsl.select(MESSAGES.ID).from(MESSAGES).where(MESSAGES.ID.gt(after)).orderBy(MESSAGES.ID)
                    .limit(BATCH).fetch(MESSAGES.ID);
            if (ids.isEmpty()) {
                return done;
            }
            Map<UUID, MessageDetails> found = reader.findMany(ids);
            List<StatusRow> rows = ids.stream().map(found::get).filter(Objects::nonNull)
                    .map(d -> StatusRow.of(d.row().tenant(), Shards.of(d.row().id(), shardCount), d.state(), reconcileWindow))
                    .toList();
            dsl.transaction(cfg -> StatusProjection.upsert(cfg.dsl(), rows));
            done += rows.size();
            after = ids.getLast();
        }
    }
}
