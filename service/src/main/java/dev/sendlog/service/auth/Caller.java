package dev.sendlog.service.auth;

import java.security.Principal;

/** The authenticated owner of a request's key. */
public record Caller(String tenant, Role role, String keyName) implements Principal {
    /** The request attribute under which authentication leaves the caller, for the access log. */
    public static final String REQUEST_ATTRIBUTE = "dev.sendlog.caller";

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
