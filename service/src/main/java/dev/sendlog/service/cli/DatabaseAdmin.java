package dev.sendlog.service.cli;

import dev.sendlog.service.db.DatabaseTarget;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Creates or drops the database a JDBC URL names, from the server's {@code postgres} database. */
final class DatabaseAdmin {
    private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([a-z_][a-z0-9_]*)(\\?.*)?");

    private DatabaseAdmin() {}

    static void run(String action, DatabaseTarget target) throws SQLException {
        Matcher m = URL.matcher(target.jdbcUrl());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "db " + action + " needs database.url like jdbc:postgresql://host:port/name "
                            + "with a lower-case name, was '" + target.jdbcUrl() + "'");
        }
        String name = m.group(2);
        String admin = m.group(1) + "postgres" + (m.group(3) == null ? "" : m.group(3));
        try (Connection c = DriverManager.getConnection(admin, target.user(), target.password());
                Statement st = c.createStatement()) {
            if (action.equals("drop")) {
                st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                System.out.println("dropped database " + name);
            } else {
                try (var rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
                    if (rs.next()) {
                        System.out.println("database " + name + " exists");
                        return;
                    }
                }
                st.execute("CREATE DATABASE " + name);
                System.out.println("created database " + name);
            }
        }
    }
}
