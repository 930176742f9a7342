package dev.sendlog.service.auth;

import static dev.sendlog.schema.jooq.Tables.API_KEYS;

import dev.sendlog.schema.jooq.tables.records.ApiKeysRecord;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jooq.DSLContext;

/** API keys, hashed, in the api_keys table. */
public final class ApiKeyStore {
    private final DSLContext dsl;

    public ApiKeyStore(DSLContext dsl) {
        this.dsl = dsl;
    }

    /** A key as the configuration gives it; only its hash is stored. */
    public record ConfiguredKey(String key, String tenant, Role role, String name) {}

    /** What a sync changed. */
    public record SyncResult(int inserted, int updated, int revoked) {}

    /**
     * Makes the table equal {@code configured}, in one transaction: keys no longer configured are deleted (revoked),
     * a changed tenant, role or name is updated, new keys are inserted; rows that already match are not written.
     * Every key comes from the configuration (nothing else creates keys), so no row needs marking as configured.
     */
    public SyncResult sync(Collection<ConfiguredKey> configured) {
        Map<String, ConfiguredKey> wanted = new LinkedHashMap<>();
        for (ConfiguredKey k : configured) {
            if (wanted.put(ApiKeyHash.of(k.key()), k) != null) {
                // Which of the two was meant is a guess; the key itself is not printed.
                throw new IllegalArgumentException("auth.keys lists the same key twice (tenant " + k.tenant()
                        + ", role " + roleName(k.role()) + ")");
            }
        }
        return dsl.transactionResult(cfg -> {
            DSLContext tx = cfg.dsl();
            // Processes started together sync one after the other; key look-ups (reads) go on meanwhile.
            tx.execute("LOCK TABLE api_keys IN EXCLUSIVE MODE");
            Map<String, ApiKeysRecord> existing = tx.selectFrom(API_KEYS).fetchMap(API_KEYS.KEY_HASH);
            Set<String> removed = new HashSet<>(existing.keySet());
            removed.removeAll(wanted.keySet());
            int revoked = removed.isEmpty()
                    ? 0
                    : tx.deleteFrom(API_KEYS)
                            .where(API_KEYS.KEY_HASH.in(removed))
                            .execute();
            int inserted = 0;
            int updated = 0;
            for (Map.Entry<String, ConfiguredKey> e : wanted.entrySet()) {
                ConfiguredKey k = e.getValue();
                ApiKeysRecord row = existing.get(e.getKey());
                if (row == null) {
                    inserted += tx.insertInto(API_KEYS)
                            .set(API_KEYS.KEY_HASH, e.getKey())
                            .set(API_KEYS.TENANT, k.tenant())
                            .set(API_KEYS.ROLE, roleName(k.role()))
                            .set(API_KEYS.NAME, k.name())
                            .execute();
                } else if (!row.getTenant().equals(k.tenant())
                        || !row.getRole().equals(roleName(k.role()))
                        || !row.getName().equals(k.name())) {
                    updated += tx.update(API_KEYS)
                            .set(API_KEYS.TENANT, k.tenant())
                            .set(API_KEYS.ROLE, roleName(k.role()))
                            .set(API_KEYS.NAME, k.name())
                            .where(API_KEYS.KEY_HASH.eq(e.getKey()))
                            .execute();
                }
            }
            return new SyncResult(inserted, updated, revoked);
        });
    }

    /**
     * The tenants that hold a client key, in order: what a staff member picks from (the console's tenant picker). Read
     * from the key table, a few rows that every process already keeps equal to its configuration.
     */
    public List<String> clientTenants() {
        return dsl.selectDistinct(API_KEYS.TENANT)
                .from(API_KEYS)
                .where(API_KEYS.ROLE.eq(roleName(Role.CLIENT)))
                .orderBy(API_KEYS.TENANT)
                .fetch(API_KEYS.TENANT);
    }

    public Optional<Caller> find(String key) {
        ApiKeysRecord r = dsl.selectFrom(API_KEYS)
                .where(API_KEYS.KEY_HASH.eq(ApiKeyHash.of(key)))
                .fetchOne();
        return r == null
                ? Optional.empty()
                : Optional.of(new Caller(r.getTenant(), Role.parse(r.getRole()), r.getName()));
    }

    private static String roleName(Role role) {
        return role.name().toLowerCase(Locale.ROOT);
    }
}
