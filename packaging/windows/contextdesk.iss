; Inno Setup 6 script for ContextDesk on Windows: installs the PyInstaller bundle, a Start menu
; entry and an uninstaller. packaging/build.py windows runs it:
;     iscc /DAppVersion=0.1.0 /DSourceDir=build\windows\dist\contextdesk /Odist packaging\windows\contextdesk.iss
; User data lives in %LOCALAPPDATA%\contextdesk (platformdirs), outside {app}: the uninstaller
; leaves it alone, and an update installs over {app} only.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef SourceDir
  #define SourceDir "..\..\build\windows\dist\contextdesk"
#endif

[Setup]
AppId={{DEF640DE-8139-4A7F-A075-B3C14849C903}
AppName=ContextDesk
AppVersion={#AppVersion}
AppPublisher=ContextDesk
DefaultDirName={autopf}\ContextDesk
DefaultGroupName=ContextDesk
DisableProgramGroupPage=yes
; Per-user by default (no administrator rights needed); the user may choose all users.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputBaseFilename=ContextDesk-{#AppVersion}-windows-x64-setup
Compression=lzma2
SolidCompression=yes
UninstallDisplayIcon={app}\ContextDesk.exe
WizardStyle=modern

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\ContextDesk"; Filename: "{app}\ContextDesk.exe"
Name: "{autodesktop}\ContextDesk"; Filename: "{app}\ContextDesk.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Run]
Filename: "{app}\ContextDesk.exe"; Description: "{cm:LaunchProgram,ContextDesk}"; Flags: nowait postinstall skipifsilent
