package dev.sendlog.service.badinput;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;

/** A message row as PostgreSQL holds it, for the fields no GET returns (body, metadata, idempotency key). */
record StoredMessage(String recipient, String body, String reference, String metadataJson, String idempotencyKey) {

    static StoredMessage read(DataSource ds, String id) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT recipient, body, reference, metadata::text, idempotency_key FROM messages WHERE id = ?")) {
            ps.setObject(1, UUID.fromString(id));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no message " + id);
                }
                return new StoredMessage(
                        rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
