import Foundation
import Testing

@testable import HTMLSafety

/// Runs every html5lib tokenizer test (`tokenizer/*.test`) in every initial state it names and
/// compares the tokens (parse error codes are not compared: Tern counts errors, it does not lint).
struct HTMLTokenizerTests {
    enum Token: Equatable, CustomStringConvertible {
        case character(String)
        case startTag(String, [String: String], Bool)
        case endTag(String)
        case comment(String)
        case doctype(String?, String?, String?, Bool)

        var description: String {
            switch self {
            case .character(let text): "Character(\(text.debugDescription))"
            case .startTag(let name, let attributes, let selfClosing): "StartTag(\(name), \(attributes), \(selfClosing))"
            case .endTag(let name): "EndTag(\(name))"
            case .comment(let text): "Comment(\(text.debugDescription))"
            case .doctype(let name, let publicId, let systemId, let correct):
                "DOCTYPE(\(String(describing: name)), \(String(describing: publicId)), \(String(describing: systemId)), \(correct))"
            }
        }
    }

    struct Outcome {
        var passed = 0
        var failed: [String] = []
        var notApplicable: [String] = []
    }

    static func state(named name: String) -> HTMLTokenizer.State? {
        switch name {
        case "Data state": .data
        case "PLAINTEXT state": .plaintext
        case "RCDATA state": .rcdata
        case "RAWTEXT state": .rawtext
        case "Script data state": .scriptData
        case "CDATA section state": .cdataSection
        default: nil
        }
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    static func tokens(of input: String, state: HTMLTokenizer.State, lastStartTag: String?) -> [Token] {
        var tokenizer = HTMLTokenizer(Array(input.utf8), state: state, lastStartTag: lastStartTag)
        if state == .cdataSection { tokenizer.allowsCDATA = true }
        var result: [Token] = []
        while true {
            switch tokenizer.next() {
            case .endOfFile: return coalesce(result)
            case .characters(let bytes): result.append(.character(text(bytes)))
            case .startTag(let tag):
                var attributes: [String: String] = [:]
                for attribute in tag.attributes { attributes[text(attribute.name)] = text(attribute.value) }
                result.append(.startTag(text(tag.name), attributes, tag.selfClosing))
            case .endTag(let tag): result.append(.endTag(text(tag.name)))
            case .comment(let bytes): result.append(.comment(text(bytes)))
            case .doctype(let doctype):
                result.append(
                    .doctype(doctype.name.map(text), doctype.publicIdentifier.map(text), doctype.systemIdentifier.map(text), !doctype.forceQuirks))
            }
        }
    }

    static func coalesce(_ tokens: [Token]) -> [Token] {
        var result: [Token] = []
        for token in tokens {
            if case .character(let more) = token, case .character(let previous)? = result.last {
                result[result.count - 1] = .character(previous + more)
            } else {
                result.append(token)
            }
        }
        return result
    }

    static func expected(_ json: [Any], unescape: Bool) -> [Token]? {
        func string(_ value: Any?) -> String? {
            guard let text = value as? String else { return nil }
            return unescape ? Html5libData.unescape(text) : text
        }
        var result: [Token] = []
        for case let item as [Any] in json {
            switch item.first as? String {
            case "Character":
                guard let text = string(item[1]) else { return nil }
                result.append(.character(text))
            case "StartTag":
                var attributes: [String: String] = [:]
                for (key, value) in item[2] as? [String: String] ?? [:] {
                    guard let key = unescape ? Html5libData.unescape(key) : key, let value = string(value) else { return nil }
                    attributes[key] = value
                }
                result.append(.startTag(string(item[1]) ?? "", attributes, item.count > 3 && (item[3] as? Bool ?? false)))
            case "EndTag": result.append(.endTag(string(item[1]) ?? ""))
            case "Comment":
                guard let text = string(item[1]) else { return nil }
                result.append(.comment(text))
            case "DOCTYPE":
                result.append(.doctype(string(item[1]), string(item[2]), string(item[3]), item[4] as? Bool ?? false))
            default: return nil
            }
        }
        return coalesce(result)
    }

    static func runAll() throws -> Outcome {
        var outcome = Outcome()
        for file in Html5libData.files("tokenizer", suffix: ".test") {
            let name = file.lastPathComponent
            guard name != "xmlViolation.test" else {
                outcome.notApplicable.append("\(name): tests the XML-violation mode, which HTML parsing does not use")
                continue
            }
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            let tests = (object?["tests"] ?? object?["xmlViolationTests"]) as? [[String: Any]] ?? []
            for test in tests {
                let description = test["description"] as? String ?? "?"
                let doubleEscaped = test["doubleEscaped"] as? Bool ?? false
                guard let rawInput = test["input"] as? String,
                    let input = doubleEscaped ? Html5libData.unescape(rawInput) : rawInput,
                    let expected = expected(test["output"] as? [Any] ?? [], unescape: doubleEscaped)
                else {
                    outcome.notApplicable.append("\(name): \(description): input holds a lone surrogate, which UTF-8 cannot carry")
                    continue
                }
                for stateName in test["initialStates"] as? [String] ?? ["Data state"] {
                    guard let state = state(named: stateName) else { continue }
                    let actual = tokens(of: input, state: state, lastStartTag: test["lastStartTag"] as? String)
                    if actual == expected {
                        outcome.passed += 1
                    } else {
                        outcome.failed.append(
                            "\(name): \(description) [\(stateName)]\n  input: \(input.debugDescription)\n  expected: \(expected)\n  actual:   \(actual)"
                        )
                    }
                }
            }
        }
        return outcome
    }

    @Test func everyTokenizerTestPasses() throws {
        let outcome = try Self.runAll()
        print("html5lib tokenizer: \(outcome.passed) passed, \(outcome.failed.count) failed, \(outcome.notApplicable.count) not applicable")
        for reason in outcome.notApplicable { print("  n/a: \(reason)") }
        for failure in outcome.failed.prefix(30) { print("  FAIL \(failure)") }
        #expect(outcome.failed.isEmpty)
        #expect(outcome.passed > 6000)
    }
}
