package dev.sendlog.service.auth;

import java.security.Principal;

/** The authenticated owner of a request's key. */
public record Caller(String tenant, Role role, String keyName) implements Principal {
    @Override
    public String getName() {
        return keyName;
    }

    /** The actor recorded on events this caller causes, e.g. {@code support:alice}. */
    public String actor() {
        return role.name().toLowerCase(java.util.Locale.ROOT) + ":" + keyName;
    }

    public boolean mayRead(String messageTenant) {
        return role.seesAllTenants() || tenant.equals(messageTenant);
    }
}
