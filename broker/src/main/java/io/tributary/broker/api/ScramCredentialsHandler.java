package io.tributary.broker.api;

import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.tributary.broker.cluster.ScramCredentialStore;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsResponse;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * DescribeUserScramCredentials and AlterUserScramCredentials (KIP-554), what {@code kafka-configs.sh --entity-type
 * users} and {@code Admin.alterUserScramCredentials} send. The client salts and hashes the password itself and sends
 * the salt, the salted password and the iterations; the broker derives the stored and server keys with kafka-clients'
 * {@link ScramFormatter} and keeps only those ({@link ScramCredentialStore}).
 *
 * <p>Checks, per user, with Kafka's error codes: an empty name or an iteration count outside the mechanism's range
 * ({@code UNACCEPTABLE_CREDENTIAL}), an unknown mechanism ({@code UNSUPPORTED_SASL_MECHANISM}), one user and
 * mechanism named twice in a request ({@code DUPLICATE_RESOURCE}), deleting a credential that does not exist, or
 * describing a user who has none ({@code RESOURCE_NOT_FOUND}). A user whose changes all pass has them applied; one
 * failing change fails that user's whole set. Alter blocks on ZooKeeper: the dispatcher runs it off the
 * request-handler threads.
 */
final class ScramCredentialsHandler {

    private final ScramCredentialStore store;

    ScramCredentialsHandler(ScramCredentialStore store) {
        this.store = store;
    }

    AbstractResponse describe(DescribeUserScramCredentialsRequest request) {
        Map<String, Map<ScramMechanism, Integer>> all = store.describe();
        DescribeUserScramCredentialsResponseData response = new DescribeUserScramCredentialsResponseData();
        List<UserName> asked = request.data().users();
        List<String> names = new ArrayList<>();
        if (asked == null || asked.isEmpty()) {
            names.addAll(all.keySet());
        } else {
            for (UserName user : asked) {
                names.add(user.name());
            }
        }
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                duplicates.add(name);
            }
        }
        for (String name : new LinkedHashSet<>(names)) {
            DescribeUserScramCredentialsResult result = new DescribeUserScramCredentialsResult().setUser(name);
            Map<ScramMechanism, Integer> credentials = all.get(name);
            if (duplicates.contains(name)) {
                result.setErrorCode(Errors.DUPLICATE_RESOURCE.code())
                        .setErrorMessage("Cannot describe SCRAM credentials for the same user twice in a single "
                                + "request: " + name);
            } else if (credentials == null) {
                result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("Attempt to describe a user credential that does not exist: " + name);
            } else {
                credentials.forEach((mechanism, iterations) -> result.credentialInfos()
                        .add(new CredentialInfo().setMechanism(mechanism.type()).setIterations(iterations)));
            }
            response.results().add(result);
        }
        return new DescribeUserScramCredentialsResponse(response);
    }

    /** A change to one credential: a new credential, or null to delete it. */
    private record Change(ScramMechanism mechanism, ScramCredential credential) {
    }

    AbstractResponse alter(AlterUserScramCredentialsRequest request) {
        Map<String, List<Change>> changes = new LinkedHashMap<>();
        Map<String, AlterUserScramCredentialsResult> failures = new HashMap<>();
        Map<String, Set<ScramMechanism>> named = new HashMap<>();
        for (ScramCredentialDeletion deletion : request.data().deletions()) {
            check(deletion.name(), deletion.mechanism(), null, changes, failures, named);
        }
        for (ScramCredentialUpsertion upsertion : request.data().upsertions()) {
            check(upsertion.name(), upsertion.mechanism(), upsertion, changes, failures, named);
        }
        AlterUserScramCredentialsResponseData response = new AlterUserScramCredentialsResponseData();
        for (String user : changes.keySet()) {
            AlterUserScramCredentialsResult result = failures.get(user);
            if (result == null) {
                result = new AlterUserScramCredentialsResult().setUser(user).setErrorCode(Errors.NONE.code());
                for (Change change : changes.get(user)) {
                    if (!store.alter(user, change.mechanism(), change.credential())) {
                        result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code()).setErrorMessage(
                                "Attempt to delete a user credential that does not exist: " + user + " "
                                        + change.mechanism().mechanismName());
                    }
                }
            }
            response.results().add(result);
        }
        return new AlterUserScramCredentialsResponse(response);
    }

    private static void check(String user, byte type, ScramCredentialUpsertion upsertion,
                              Map<String, List<Change>> changes, Map<String, AlterUserScramCredentialsResult> failures,
                              Map<String, Set<ScramMechanism>> named) {
        changes.computeIfAbsent(user, u -> new ArrayList<>());
        if (failures.containsKey(user)) {
            return;
        }
        ScramMechanism mechanism = null;
        for (ScramMechanism candidate : ScramMechanism.values()) {
            if (candidate.type() == type) {
                mechanism = candidate;
            }
        }
        if (user == null || user.isEmpty()) {
            fail(failures, user, Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        } else if (mechanism == null) {
            fail(failures, user, Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism type " + type);
        } else if (!named.computeIfAbsent(user, u -> new HashSet<>()).add(mechanism)) {
            fail(failures, user, Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same "
                    + "request: " + mechanism.mechanismName());
        } else if (upsertion == null) {
            changes.get(user).add(new Change(mechanism, null));
        } else if (upsertion.iterations() < mechanism.minIterations()
                || upsertion.iterations() > mechanism.maxIterations()) {
            fail(failures, user, Errors.UNACCEPTABLE_CREDENTIAL, "Iterations " + upsertion.iterations()
                    + " not in the range " + mechanism.minIterations() + " to " + mechanism.maxIterations()
                    + " of " + mechanism.mechanismName());
        } else if (upsertion.salt() == null || upsertion.salt().length == 0 || upsertion.saltedPassword() == null
                || upsertion.saltedPassword().length == 0) {
            fail(failures, user, Errors.UNACCEPTABLE_CREDENTIAL, "Salt and salted password must not be empty");
        } else {
            try {
                changes.get(user).add(new Change(mechanism, new ScramFormatter(mechanism).generateCredential(
                        upsertion.salt(), upsertion.saltedPassword(), upsertion.iterations())));
            } catch (NoSuchAlgorithmException e) {
                fail(failures, user, Errors.UNSUPPORTED_SASL_MECHANISM, "The JDK has no "
                        + mechanism.hashAlgorithm());
            }
        }
    }

    private static void fail(Map<String, AlterUserScramCredentialsResult> failures, String user, Errors error,
                             String message) {
        failures.put(user, new AlterUserScramCredentialsResult().setUser(user).setErrorCode(error.code())
                .setErrorMessage(message));
    }
}
