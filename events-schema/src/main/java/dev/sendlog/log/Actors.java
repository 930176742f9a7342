package dev.sendlog.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The actors dictionary: event rows carry a small id, the {@code actors} table its name (api, timer, poller-host-pid,
 * admin:name...). Both directions are cached for the life of the process; a name is inserted the first time a process
 * writes with it, on a connection of its own (committed at once, whatever the caller's transaction does).
 */
public final class Actors {
    private final DataSource dataSource;
    private final Map<String, Integer> ids = new ConcurrentHashMap<>();
    private final Map<Integer, String> names = new ConcurrentHashMap<>();

    public Actors(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The id of {@code name}, registered if new. */
    public int id(String name) {
        Integer id = ids.get(name);
        return id != null ? id : register(name);
    }

    /** The name of {@code id}; throws when no such actor exists (a row naming one is corrupt). */
    public String name(int id) {
        String name = names.get(id);
        return name != null ? name : lookup(id);
    }

    private int register(String name) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement insert =
                            c.prepareStatement("INSERT INTO actors (name) VALUES (?) ON CONFLICT (name) DO NOTHING");
                    PreparedStatement select = c.prepareStatement("SELECT id FROM actors WHERE name = ?")) {
                insert.setString(1, name);
                insert.executeUpdate();
                select.setString(1, name);
                try (ResultSet rs = select.executeQuery()) {
                    rs.next();
                    int id = rs.getInt(1);
                    ids.put(name, id);
                    names.put(id, name);
                    return id;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot register actor " + name, e);
        }
    }

    private String lookup(int id) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT name FROM actors WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no actor with id " + id);
                }
                String name = rs.getString(1);
                names.put(id, name);
                ids.put(name, id);
                return name;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read actor " + id, e);
        }
    }
}
