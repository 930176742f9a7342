package dev.sendlog.service.auth;

/** What a key may do (API.md): clients send and read their own; support reads all; admin also repairs. */
public enum Role {
    CLIENT,
    SUPPORT,
    ADMIN;

    public static final String CLIENT_NAME = "CLIENT";
    public static final String SUPPORT_NAME = "SUPPORT";
    public static final String ADMIN_NAME = "ADMIN";

    public static Role parse(String value) {
        return Role.valueOf(value.toUpperCase(java.util.Locale.ROOT));
    }

    /** Support and admin keys see every tenant. */
    public boolean seesAllTenants() {
        return this != CLIENT;
    }
}
