import ts from 'typescript';

/**
 * The members of the type `typeName` declared in `file` (nested ones as `call.read`, an
 * array's items as `forbid[]`, a record's values as `byKey{}`) whose type is, or may be, a
 * function: the parts of a family's declaration that are code, not data. Strings and other
 * primitives are data, whatever methods their boxes carry, and so is a regular expression (a
 * pattern the engine reads); each type is entered once.
 */
export function functionMembers(file: string, typeName: string): string[] {
  const program = ts.createProgram([file], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file) as ts.SourceFile;
  const declaration = source.statements.find(
    (s): s is ts.InterfaceDeclaration | ts.TypeAliasDeclaration =>
      (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === typeName,
  );
  if (declaration === undefined) throw new Error(`${file} declares no type ${typeName}`);
  const isCode = (type: ts.Type): boolean =>
    type.isUnion() ? type.types.some(isCode) : type.getCallSignatures().length > 0;
  const code: string[] = [];
  const entered = new Set<ts.Type>();
  const visit = (type: ts.Type, path: string): void => {
    for (const part of type.isUnion() ? type.types : [type]) {
      if (!(part.flags & ts.TypeFlags.Object) || entered.has(part)) continue;
      if (part.getSymbol()?.getName() === 'RegExp') continue;
      entered.add(part);
      if (checker.isArrayType(part) || checker.isTupleType(part)) {
        for (const item of checker.getTypeArguments(part as ts.TypeReference))
          inspect(item, `${path}[]`);
        continue;
      }
      const values = checker.getIndexTypeOfType(part, ts.IndexKind.String);
      if (values !== undefined) inspect(values, `${path}{}`);
      for (const member of checker.getPropertiesOfType(part))
        inspect(
          checker.getTypeOfSymbol(member),
          path === '' ? member.name : `${path}.${member.name}`,
        );
    }
  };
  const inspect = (type: ts.Type, name: string): void => {
    const nonNull = checker.getNonNullableType(type);
    if (isCode(nonNull)) code.push(name);
    else visit(nonNull, name);
  };
  visit(checker.getTypeAtLocation(declaration.name), '');
  return [...new Set(code)].sort();
}
