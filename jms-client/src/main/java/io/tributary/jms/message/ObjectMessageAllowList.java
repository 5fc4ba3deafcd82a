package io.tributary.jms.message;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which classes an {@code ObjectMessage} may deserialize. Deserializing an arbitrary class from a message is a
 * remote-code-execution hole (the classic gadget chains), so Tributary denies by default and the application names
 * what it trusts.
 *
 * <p><b>Always allowed</b>, whatever the configuration: the primitive types and arrays of them, {@code String},
 * the boxed primitives, the JDK supertypes their serialized form names ({@code Number}, {@code Enum},
 * {@code Object} as an array component type), and {@code StringBuffer} and {@code StringBuilder}, java.lang's other
 * character sequences. These classes run no code when deserialized, or none but copying characters (the two
 * builders' {@code readObject} reads a {@code char[]} and a count; the array is bounded by
 * {@link ObjectMessageLimits}). Other JDK types that are safe (immutable values such as {@code java.net.URI}) are
 * not always allowed, as every entry widens what a hostile producer can make the receiver build: an application
 * names them in its list.
 *
 * <p><b>Configured entries</b>, given as a comma-separated list to {@link #parse(String)}: each is a package prefix
 * or a class name. A class is allowed when its name equals an entry, starts with the entry followed by {@code .}
 * (every class in that package and its sub-packages) or by {@code $} (the nested classes of an allowed class). A
 * trailing {@code .*} is accepted and means the same as the package name alone. The single entry {@code *} allows
 * every class; use it only when every producer is trusted. An array is allowed when its component type is.
 *
 * <p><b>Default</b> ({@link #DEFAULT}): {@code java.util, java.math, java.time} (collections, big numbers, dates), on
 * top of the always-allowed types. A configured list replaces these three defaults; it does not add to them, so an
 * application that widens the default lists them too ({@code java.util,java.math,java.time,com.example.billing}).
 *
 * <p>The check runs in an {@link java.io.ObjectInputFilter} ({@code ObjectMessageFilter}) on every class the stream
 * names (superclasses and field types included), before the class is initialized, together with the
 * {@link ObjectMessageLimits} that bound what allowed classes may cost. A JVM-wide filter ({@code jdk.serialFilter})
 * still applies: what it rejects stays rejected.
 *
 * <p>Immutable; any thread.
 */
public final class ObjectMessageAllowList {

    private static final Set<String> ALWAYS_ALLOWED = Set.of(
            "java.lang.String", "java.lang.Boolean", "java.lang.Byte", "java.lang.Short", "java.lang.Character",
            "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.lang.Number",
            "java.lang.Enum", "java.lang.Object", "java.lang.StringBuffer", "java.lang.StringBuilder");

    private static final Pattern JAVA_NAME =
            Pattern.compile("\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*"
                    + "(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");

    /**
     * {@code java.util, java.math, java.time} on top of the always-allowed types. Declared after the
     * patterns {@link #parse} uses, which static initialization must have set first.
     */
    public static final ObjectMessageAllowList DEFAULT = parse("java.util,java.math,java.time");

    private final List<String> entries;
    private final boolean allowsAll;

    private ObjectMessageAllowList(List<String> entries) {
        this.entries = List.copyOf(entries);
        this.allowsAll = entries.contains("*");
    }

    /**
     * Parses a comma-separated list of package prefixes and class names; blanks around entries are ignored, an empty
     * list allows only the always-allowed types, {@code *} allows everything.
     *
     * @throws IllegalArgumentException naming an entry that is neither {@code *} nor a Java package or class name
     */
    public static ObjectMessageAllowList parse(String commaSeparated) {
        List<String> entries = new ArrayList<>();
        for (String raw : commaSeparated.split(",")) {
            String entry = raw.strip();
            if (entry.isEmpty()) {
                continue;
            }
            if (entry.endsWith(".*")) {
                entry = entry.substring(0, entry.length() - 2);
            }
            if (!entry.equals("*") && !JAVA_NAME.matcher(entry).matches()) {
                throw new IllegalArgumentException("ObjectMessage allow-list entry '" + raw.strip()
                        + "' is neither '*' nor a package or class name such as com.example or com.example.Order");
            }
            entries.add(entry);
        }
        return new ObjectMessageAllowList(entries);
    }

    /** Whether objects of the class named {@code className} (as {@link Class#getName()} spells it) may be read. */
    public boolean allows(String className) {
        if (allowsAll || ALWAYS_ALLOWED.contains(className)) {
            return true;
        }
        for (String entry : entries) {
            if (className.startsWith(entry) && (className.length() == entry.length()
                    || className.charAt(entry.length()) == '.' || className.charAt(entry.length()) == '$')) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code type} may be read: primitives always, arrays by component type, classes by name. */
    public boolean allows(Class<?> type) {
        Class<?> component = type;
        while (component.isArray()) {
            component = component.getComponentType();
        }
        return component.isPrimitive() || allows(component.getName());
    }

    /** The configured entries, without the always-allowed types. */
    public List<String> entries() {
        return entries;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectMessageAllowList other && entries.equals(other.entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    /** The list as {@link #parse(String)} reads it. */
    @Override
    public String toString() {
        return String.join(",", entries);
    }
}
