package dev.sendlog.service.log;

import java.util.ArrayDeque;
import java.util.Deque;
import org.jooq.DSLContext;

/**
 * Ids from a sequence, fetched a block at a time: a publication needs its id before its row is written (its jobs carry
 * it), and one round trip per block is cheaper than one per id. Ids are unique, not gapless.
 */
public final class IdBlocks {
    private final DSLContext dsl;
    private final String sequence;
    private final int blockSize;
    private final Deque<Long> free = new ArrayDeque<>();

    public IdBlocks(DSLContext dsl, String sequence, int blockSize) {
        this.dsl = dsl;
        this.sequence = sequence;
        this.blockSize = blockSize;
    }

    public synchronized long next() {
        if (free.isEmpty()) {
            dsl.resultQuery("SELECT nextval('" + sequence + "') FROM generate_series(1, " + blockSize + ")")
                    .forEach(r -> free.add(r.get(0, Long.class)));
        }
        return free.removeFirst();
    }
}
