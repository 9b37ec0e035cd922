import Foundation

/// FR-SYNC-01 step 1 on a server that does not mark its folders (no SPECIAL-USE, or some roles
/// unmarked): Sent, Drafts, Trash, Junk and Archive are recognised by the names mail clients and
/// servers give them, in the languages Tern writes and the common others, as Thunderbird and
/// Apple Mail do. Without this, delete and archive created a second `Trash` beside the user's
/// `Deleted Items`, and Sent copies had nowhere to go (issue 22).
///
/// Only folders at the top of the personal namespace count (`Trash`, `INBOX.Trash`,
/// `[Gmail]/Corbeille`): `Projects/Trash` is the user's own folder. A role the server marks is
/// never taken from a name, and Gmail's `\All` stands for Archive.
public enum SpecialUseInference {
    /// Names in order of preference, compared without case or diacritics.
    static let names: [(FolderType, [String])] = [
        (
            .sent,
            [
                "Sent", "Sent Items", "Sent Messages", "Sent Mail", "Gesendet", "Gesendete Elemente", "Gesendete Objekte",
                "Envoyés", "Messages envoyés", "Éléments envoyés", "Enviados", "Elementos enviados", "Posta inviata",
                "Inviata", "Elementi inviati", "Verzonden", "Verzonden items", "Itens enviados", "Wysłane", "Отправленные"
            ]
        ),
        (
            .drafts,
            [
                "Drafts", "Draft", "Entwürfe", "Brouillons", "Borradores", "Bozze", "Concepten", "Rascunhos",
                "Kopie robocze", "Черновики"
            ]
        ),
        (
            .trash,
            [
                "Trash", "Deleted Items", "Deleted Messages", "Deleted", "Bin", "Papierkorb", "Gelöschte Elemente",
                "Gelöschte Objekte", "Corbeille", "Éléments supprimés", "Papelera", "Elementos eliminados", "Cestino",
                "Posta eliminata", "Prullenbak", "Verwijderde items", "Lixeira", "Lixo", "Kosz", "Корзина"
            ]
        ),
        (
            .spam,
            [
                "Junk", "Spam", "Junk E-mail", "Junk Email", "Junk Mail", "Bulk Mail", "Unerwünscht", "Courrier indésirable",
                "Indésirables", "Correo no deseado", "Posta indesiderata", "Ongewenste e-mail", "Lixo eletrônico", "Спам"
            ]
        ),
        (.archive, ["Archive", "Archives", "Archiv", "Archivo", "Archivio", "Archief", "Arquivo", "Archiwum", "Архив"])
    ]

    /// Parents under which a folder is still at the top of the user's folders: the personal
    /// namespace of Cyrus and Courier (`INBOX.`) and Gmail's system container.
    static let topLevelParents: Set<String> = ["", "inbox", "[gmail]", "[google mail]"]

    /// The folders with unmarked roles given the type their name says.
    public static func completing(_ folders: [DiscoveredFolder]) -> [DiscoveredFolder] {
        var result = folders
        let marked = Set(folders.map(\.folderType))
        for (role, spellings) in names {
            if marked.contains(role) || (role == .archive && marked.contains(.all)) { continue }
            let candidates = result.indices.compactMap { index -> (rank: Int, depth: Int, index: Int)? in
                let folder = result[index]
                guard folder.folderType == .custom else { return nil }
                let (parent, leaf) = split(folder)
                guard topLevelParents.contains(fold(parent)),
                    let rank = spellings.firstIndex(where: { fold($0) == fold(leaf) })
                else { return nil }
                return (rank, parent.isEmpty ? 0 : 1, index)
            }
            if let best = candidates.min(by: { ($0.rank, $0.depth) < ($1.rank, $1.depth) }) {
                result[best.index].folderType = role
            }
        }
        return result
    }

    static func split(_ folder: DiscoveredFolder) -> (parent: String, leaf: String) {
        guard let delimiter = folder.delimiter, !delimiter.isEmpty,
            let range = folder.path.range(of: delimiter, options: .backwards)
        else { return ("", folder.path) }
        return (String(folder.path[..<range.lowerBound]), String(folder.path[range.upperBound...]))
    }

    static func fold(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
