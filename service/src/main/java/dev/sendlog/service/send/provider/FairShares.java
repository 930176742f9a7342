package dev.sendlog.service.send.provider;

import com.codahale.metrics.MetricRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A gateway's rate shared between lanes by weight (issue 29, fair shares), in one send-worker process: each lane's
 * takes queue in its own line, and one take at a time goes to the shared bucket ({@link GatewayRate}), chosen by
 * deficit round robin over the lanes that have a take waiting, so while a lane has work it gets at least its weight's
 * share of the tokens, and a lane with nothing waiting leaves its share to the others (work-conserving). A lane marked
 * first (the high lane) is always served before the weighted ones.
 *
 * <p>Why one take at a time: the bucket hands out tokens in the order asked, so a flooding lane with a hundred takes
 * waiting in it would put every other lane's take behind all of them. Here the other lane's take is the next but one
 * at most. The cost is that takes do not overlap in Redis, which bounds a gateway to a few thousand takes a second per
 * process (a round trip each); a gateway with no tenant lanes does not use this class.
 */
public final class FairShares {
    private final GatewayRate rate;
    private final ReentrantLock lock = new ReentrantLock(true);
    private final List<Line> lines = new ArrayList<>();
    private boolean busy;
    /** The weighted lane being visited, and whether its quantum for this visit has been added. */
    private int next;

    private boolean visiting;
    /** Told, in order and under the lock, the lane of every turn given, and "+lane" for every take that joins a line; for tests. */
    private java.util.function.Consumer<String> grants = lane -> {};

    private static final class Waiter {
        final int parts;
        final Condition turn;
        final String lane;
        boolean granted;

        Waiter(int parts, Condition turn, String lane) {
            this.parts = parts;
            this.turn = turn;
            this.lane = lane;
        }
    }

    private final class Line implements SendRate {
        final String name;
        final int weight;
        final boolean first;
        final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        long deficit;

        Line(String name, int weight, boolean first) {
            this.name = name;
            this.weight = weight;
            this.first = first;
        }

        @Override
        public String gateway() {
            return rate.gateway();
        }

        @Override
        public boolean acquire(int parts, Duration maxWait) throws InterruptedException {
            long deadline = System.nanoTime() + Math.max(0, maxWait.toNanos());
            if (!takeTurn(this, parts, deadline)) {
                return false;
            }
            try {
                long left = deadline - System.nanoTime();
                return rate.acquire(parts, Duration.ofNanos(Math.max(0, left)));
            } finally {
                passTurn();
            }
        }

        @Override
        public boolean tryAcquire(int parts) {
            lock.lock();
            try {
                if (busy || anyWaiting()) {
                    return false; // others are in line: this take joins a line instead (acquire)
                }
                busy = true;
                grants.accept(name);
            } finally {
                lock.unlock();
            }
            try {
                return rate.tryAcquire(parts);
            } finally {
                passTurn();
            }
        }

        @Override
        public void throttled(Duration retryAfter) {
            rate.throttled(retryAfter);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    public FairShares(GatewayRate rate, MetricRegistry metrics) {
        this.rate = rate;
        metrics.registerGauge("gateway." + rate.gateway() + ".rate.takes.waiting", this::waiting);
    }

    /**
     * The rate as one lane takes it. {@code weight}: its share against the other weighted lanes with takes waiting;
     * {@code first}: served before every weighted lane (the high lane).
     */
    public SendRate lane(String name, int weight, boolean first) {
        if (weight < 1) {
            throw new IllegalArgumentException("a lane's weight is at least 1, not " + weight);
        }
        lock.lock();
        try {
            Line line = new Line(name, weight, first);
            lines.add(line);
            return line;
        } finally {
            lock.unlock();
        }
    }

    private int waiting() {
        lock.lock();
        try {
            return lines.stream().mapToInt(l -> l.waiting.size()).sum();
        } finally {
            lock.unlock();
        }
    }

    private boolean anyWaiting() {
        for (Line l : lines) {
            if (!l.waiting.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Waits in the lane's line until this take's turn comes; false at the deadline (then it left the line). */
    private boolean takeTurn(Line line, int parts, long deadline) throws InterruptedException {
        lock.lock();
        try {
            if (!busy && !anyWaiting()) {
                busy = true;
                grants.accept(line.name);
                return true;
            }
            Waiter me = new Waiter(parts, lock.newCondition(), line.name);
            line.waiting.addLast(me);
            grants.accept("+" + line.name);
            try {
                while (!me.granted) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        line.waiting.remove(me);
                        return false;
                    }
                    me.turn.awaitNanos(left);
                }
                return true;
            } catch (InterruptedException e) {
                if (me.granted) {
                    passTurnLocked(); // granted as it was interrupted: hand the turn on
                } else {
                    line.waiting.remove(me);
                }
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    private void passTurn() {
        lock.lock();
        try {
            passTurnLocked();
        } finally {
            lock.unlock();
        }
    }

    /** Hands the turn to the next waiter: a first lane's if any, else by deficit round robin; or frees it. */
    private void passTurnLocked() {
        for (Line l : lines) {
            if (l.first && !l.waiting.isEmpty()) {
                grant(l.waiting.pollFirst());
                return;
            }
        }
        List<Line> weighted = lines.stream().filter(l -> !l.first).toList();
        boolean any = weighted.stream().anyMatch(l -> !l.waiting.isEmpty());
        if (!any) {
            busy = false;
            weighted.forEach(l -> l.deficit = 0);
            visiting = false;
            return;
        }
        while (true) {
            Line l = weighted.get(next % weighted.size());
            if (!visiting) {
                // A new visit of this lane: its quantum (its weight, in parts) is added once per round.
                l.deficit += l.weight;
                visiting = true;
            }
            Waiter head = l.waiting.peekFirst();
            if (head != null && l.deficit >= head.parts) {
                l.deficit -= head.parts;
                grant(l.waiting.pollFirst());
                return;
            }
            if (head == null) {
                l.deficit = 0; // an empty line keeps no credit
            }
            next = (next + 1) % weighted.size();
            visiting = false;
        }
    }

    private void grant(Waiter w) {
        w.granted = true;
        grants.accept(w.lane);
        w.turn.signal();
    }

    /** For tests: told the lane of every turn given from now on, and "+lane" when a take joins that lane's line. */
    void observeGrants(java.util.function.Consumer<String> observer) {
        lock.lock();
        try {
            grants = observer;
        } finally {
            lock.unlock();
        }
    }

    /** For tests: takes waiting in a lane's line. */
    int waitingIn(String lane) {
        lock.lock();
        try {
            return lines.stream()
                    .filter(l -> l.name.equals(lane))
                    .mapToInt(l -> l.waiting.size())
                    .sum();
        } finally {
            lock.unlock();
        }
    }

    /** For tests: whether no take is in progress or waiting. */
    boolean idle() {
        lock.lock();
        try {
            return !busy && !anyWaiting();
        } finally {
            lock.unlock();
        }
    }
}
