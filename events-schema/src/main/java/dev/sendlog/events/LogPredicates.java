package dev.sendlog.events;

/**
 * The predicates over {@code message_events} that its partial indexes are built on (migration V8): a query says them
 * exactly, as literals, for the planner to use those indexes, and takes them from here rather than writing the type
 * codes out. Each is written against the table alias {@code e}; {@link #WORK_UNQUALIFIED} and
 * {@link #PROVIDER_ACCEPTED_UNQUALIFIED} are for a query without one.
 */
public final class LogPredicates {
    /** The work events the pollers publish (REDRIVEN rows: the acceptance is the messages row). */
    public static final String WORK_UNQUALIFIED = "type = " + EventType.REDRIVEN.code();

    public static final String WORK = "e." + WORK_UNQUALIFIED;

    /** The provider's acceptances, which receipts are matched against by (gateway, provider id). */
    public static final String PROVIDER_ACCEPTED_UNQUALIFIED = "type = " + EventType.PROVIDER_ACCEPTED.code();

    private LogPredicates() {}
}
