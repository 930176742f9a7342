package dev.sendlog.service.tasks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The tables one of autovacuum's rules picks, as the maintenance jobs that stand in for it read them: a query over
 * {@code pg_stat_user_tables} with two parameters, a number of rows and a fraction of the table's counted size, that
 * answers qualified table names, most due first.
 */
final class DueTables {
    private DueTables() {}

    static List<String> of(Connection c, String sql, long rows, double fraction) throws SQLException {
        List<String> due = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, rows);
            ps.setDouble(2, fraction);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    due.add(rs.getString(1));
                }
            }
        }
        return due;
    }
}
