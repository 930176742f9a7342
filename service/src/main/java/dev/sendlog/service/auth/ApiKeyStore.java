package dev.sendlog.service.auth;

import static dev.sendlog.schema.jooq.Tables.API_KEYS;

import dev.sendlog.schema.jooq.tables.records.ApiKeysRecord;
import java.util.Optional;
import org.jooq.DSLContext;

/** API keys, hashed, in the api_keys table. */
public final class ApiKeyStore {
    private final DSLContext dsl;

    public ApiKeyStore(DSLContext dsl) {
        this.dsl = dsl;
    }

    /** Registers a key (idempotent: an existing key keeps its tenant and role). */
    public void register(String key, String tenant, Role role, String name) {
        dsl.insertInto(API_KEYS)
                .set(API_KEYS.KEY_HASH, ApiKeyHash.of(key))
                .set(API_KEYS.TENANT, tenant)
                .set(API_KEYS.ROLE, role.name().toLowerCase(java.util.Locale.ROOT))
                .set(API_KEYS.NAME, name)
                .onConflictDoNothing()
                .execute();
    }

    public Optional<Caller> find(String key) {
        ApiKeysRecord r = dsl.selectFrom(API_KEYS).where(API_KEYS.KEY_HASH.eq(ApiKeyHash.of(key))).fetchOne();
        return r == null ? Optional.empty() : Optional.of(new Caller(r.getTenant(), Role.parse(r.getRole()), r.getName()));
    }
}
