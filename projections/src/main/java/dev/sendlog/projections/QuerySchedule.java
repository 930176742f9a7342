package dev.sendlog.projections;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When a message the provider accepted, and that has no final receipt, is asked about (issue 32): at {@code firstAfter}
 * after the acceptance, then at doubling intervals ({@code firstAfter * 2^k}) while that is before the end of the
 * reconciliation window, then at the end, then every {@code retryEvery} for {@code grace} after it. A message with no
 * final status by the end of the grace is UNKNOWN ({@link #unknownAt}); one whose last query is answered without a final
 * before that is UNKNOWN at once. A query that fails is asked again at the next point: the doubling is its backoff.
 *
 * <p>Points are coalesced by {@code coalesce}: a message whose point comes within it counts as due now, so the messages of
 * one batch, accepted milliseconds apart, are asked at one check of their publication, not one check each.
 *
 * @param firstAfter how long after the provider's acceptance the first query is due (default 10 minutes)
 * @param window     the reconciliation window (the end of the doubling)
 * @param grace      how long after the window's end queries go on before the message is UNKNOWN without an answer
 * @param retryEvery the interval of the queries in the grace
 * @param coalesce   how early a point may be taken
 */
public record QuerySchedule(
        Duration firstAfter, Duration window, Duration grace, Duration retryEvery, Duration coalesce) {
    public QuerySchedule {
        Objects.requireNonNull(firstAfter, "firstAfter");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(grace, "grace");
        Objects.requireNonNull(retryEvery, "retryEvery");
        Objects.requireNonNull(coalesce, "coalesce");
        if (firstAfter.isNegative()
                || firstAfter.isZero()
                || retryEvery.isNegative()
                || retryEvery.isZero()
                || grace.isNegative()
                || coalesce.isNegative()) {
            throw new IllegalArgumentException(
                    "firstAfter and retryEvery must be positive, grace and coalesce not negative");
        }
    }

    /** The end of the reconciliation window of a message the provider accepted at {@code sentAt}. */
    public Instant end(Instant sentAt) {
        return sentAt.plus(window);
    }

    /** When a message accepted at {@code sentAt} becomes UNKNOWN if nothing final was learned by then. */
    public Instant unknownAt(Instant sentAt) {
        return end(sentAt).plus(grace);
    }

    /**
     * Whether a query of a message accepted at {@code sentAt} is due at {@code now}: a point has come and the grace has
     * not passed (at its very end, with no grace at the window's end, one last query is still due).
     */
    public boolean due(Instant sentAt, Instant now) {
        Instant soon = now.plus(coalesce);
        // The first point is the end of the window when that comes first (a first query later than the window).
        Instant first = sentAt.plus(firstAfter);
        Instant end = end(sentAt);
        return !soon.isBefore(first.isBefore(end) ? first : end) && !now.isAfter(unknownAt(sentAt));
    }

    /** Whether a query due at {@code now} is the last word: the window has ended, so an answer without a final is UNKNOWN. */
    public boolean last(Instant sentAt, Instant now) {
        return !now.plus(coalesce).isBefore(end(sentAt));
    }

    /**
     * The first point after {@code now} (past the coalescing), or the time it becomes UNKNOWN when no point is left;
     * always after {@code now}.
     */
    public Instant next(Instant sentAt, Instant now) {
        Instant soon = now.plus(coalesce);
        Instant end = end(sentAt);
        if (soon.isBefore(end)) {
            Duration step = firstAfter;
            while (true) {
                Instant point = sentAt.plus(step);
                if (!point.isBefore(end)) {
                    return end;
                }
                if (point.isAfter(soon)) {
                    return point;
                }
                if (step.compareTo(window) > 0) {
                    return end; // no doubling left before the end (and no overflow)
                }
                step = step.multipliedBy(2);
            }
        }
        Instant unknown = unknownAt(sentAt);
        long passed = Duration.between(end, soon).toMillis() / retryEvery.toMillis() + 1;
        Instant point = end.plus(retryEvery.multipliedBy(passed));
        Instant next = point.isBefore(unknown) ? point : unknown;
        // Always after now: a check at the UNKNOWN time itself looks again a retry later (by then it is UNKNOWN).
        return next.isAfter(now) ? next : now.plus(retryEvery);
    }
}
