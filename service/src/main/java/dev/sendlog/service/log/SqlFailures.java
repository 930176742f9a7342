package dev.sendlog.service.log;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/** Sorts database failures into "cannot commit now" (503), "retry the same work", and the rest. */
public final class SqlFailures {
    private SqlFailures() {}

    /** The database cannot be reached or cannot take this write now: the client should come back later. */
    public static boolean isUnavailable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLTransientConnectionException || c instanceof java.net.ConnectException) {
                return true;
            }
            if (c instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                // 08: connection; 57P0x: shutting down; 53xxx: out of resources; 25006: read-only;
                // 55000: database not accepting connections; 3D000: no such database; 28xxx: login refused.
                if (state.startsWith("08")
                        || state.startsWith("57P0")
                        || state.startsWith("53")
                        || state.equals("25006")
                        || state.equals("55000")
                        || state.equals("3D000")
                        || state.startsWith("28")) {
                    return true;
                }
                if (isMissingPartition(sql)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** An insert whose id falls in a day without partition (there is no DEFAULT partition, by design). */
    public static boolean isMissingPartition(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql
                    && "23514".equals(sql.getSQLState())
                    && sql.getMessage() != null
                    && sql.getMessage().contains("no partition of relation")) {
                return true;
            }
        }
        return false;
    }

    /** A deadlock or serialization failure: the same work can simply run again. */
    public static boolean isRetryable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql
                    && ("40P01".equals(sql.getSQLState()) || "40001".equals(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }
}
